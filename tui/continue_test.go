package tui

import (
	"strings"
	"testing"

	"parley/internal/chat"
	"parley/internal/demo"
)

// A reply cut after 40 chunks arms Tier 2, whose banner offers c; c goes on from the cut: the
// request carries the 40 chunks as the assistant's turn, the reply shown and stored is the
// cut text joined with what followed, the cut one stays as a version, and the seam is marked
// until s hides it.
func TestContinueGoesOnFromTheCut(t *testing.T) {
	t.Parallel()
	d, srv, clock, db := demoScreen(t, tier2Config(demo.Fault{CutAfter: 40}))
	d.sendUntilArmed("tell me about quokkas")
	cut := lastReply(t, d.m)
	if cut.message.Status != chat.StatusFailed || len(cut.text) < 40 {
		t.Fatalf("the cut reply: %+v %q", cut.message.Status, cut.text)
	}
	if s := plain(d.m); !strings.Contains(s, "· c continue") {
		t.Fatalf("the banner offers no continue:\n%s", s)
	}
	d.send(press("c"))
	d.until("the continued reply", func(m Model) bool {
		return settled(m) && !m.tier2.Active() && lastReply(t, m).message.ID != cut.message.ID &&
			lastReply(t, m).message.Status == chat.StatusSucceeded
	})
	if srv.Requests() != 2 {
		t.Fatalf("%d requests, want the cut one and the continuation", srv.Requests())
	}
	sent := srv.Received()[1].Messages
	if len(sent) < 2 || sent[1].Role != "assistant" || sent[1].Content != cut.text {
		t.Fatalf("the continuation sent %+v; want the cut text as the assistant's turn", sent)
	}
	joined := lastReply(t, d.m)
	if !strings.HasPrefix(joined.text, cut.text) || len(joined.text) <= len(cut.text) {
		t.Fatalf("the reply shown %q does not go on from the cut %q", joined.text, cut.text)
	}
	stored := storedReply(t, db, d.m.session.ID, joined.message.ID)
	if stored.Content != joined.text || stored.Seam != len(cut.text) || strings.Contains(stored.Content, seamGlyph) {
		t.Fatalf("stored %q (seam %d); want the joined text, the seam at %d, no mark", stored.Content, stored.Seam, len(cut.text))
	}
	versions, err := db.Versions(cut.message.AnchorID)
	if err != nil || len(versions) != 2 || versions[0].Content != cut.text || !versions[0].Superseded {
		t.Fatalf("versions %+v, %v; want the cut one kept beside the joined one", versions, err)
	}
	if s := plain(d.m); strings.Count(s, seamGlyph) != 1 {
		t.Fatalf("the seam is not marked once:\n%s", s)
	}
	clock.Advance(selectGuard) // esc selects replies a moment after a run ends
	d.selectReplies()
	if cmd := d.m.transcriptKey(press("y"), confirm{}); clipText(cmd) != joined.text {
		t.Fatalf("y copied something else than the joined reply")
	}
	d.send(press("s"))
	if s := plain(d.m); strings.Contains(s, seamGlyph) {
		t.Fatalf("s left the seam marked:\n%s", s)
	}
}

// seamGlyph is the seam's mark as the screen draws it.
const seamGlyph = "‸"

// c on a reply that ended whole says so, and sends nothing.
func TestContinueRefusesAWholeReply(t *testing.T) {
	t.Parallel()
	d, srv, _, _ := demoScreen(t, screenConfig{demo: queueable})
	d.typeAndSend("hello")
	d.until("the reply", func(m Model) bool { return settled(m) && lastReply(t, m).message.Status == chat.StatusSucceeded })
	d.selectReplies()
	d.send(press("c"))
	if s := plain(d.m); !strings.Contains(s, "this reply was not cut: r regenerates it") {
		t.Fatalf("no word on c:\n%s", s)
	}
	if srv.Requests() != 1 || d.m.focus != focusTranscript {
		t.Fatalf("%d requests, focus %v", srv.Requests(), d.m.focus)
	}
}
