package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/history/historytest"
	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/chat/chattest"
)

// A message whose store failed is never dropped: it comes back into the input with everything
// queued behind it, before what was typed meanwhile, and nothing more is sent until the
// operator says so.
func TestMessagesThatCouldNotBeStoredComeBack(t *testing.T) {
	t.Parallel()
	db := historytest.Open(t)
	m, _ := openOffline(t, db, stored.Session{}, 80, 24)
	if err := db.Close(); err != nil { // from now on every store fails
		t.Fatal(err)
	}
	m = typeText(m, "first")
	m, post := step(m, press("enter"))
	m = typeText(m, "second")
	m, _ = step(m, press("enter"))
	m = typeText(m, "third")
	m, _ = step(m, press("enter"))
	m = typeText(m, "typed while it waited")
	if len(m.outbox) != 2 || !m.posting {
		t.Fatalf("outbox %v, posting %v: want two messages behind the one being stored", m.outbox, m.posting)
	}
	msgs := execCmd(post, 5*time.Second)
	if len(msgs) != 1 {
		t.Fatalf("the store gave %d messages", len(msgs))
	}
	m, cmd := step(m, msgs[0])
	if want := "first\n\nsecond\n\nthird\n\ntyped while it waited"; m.input.Value() != want {
		t.Fatalf("input %q, want %q", m.input.Value(), want)
	}
	if cmd != nil || m.posting || len(m.outbox) != 0 {
		t.Fatalf("something more was sent: posting %v, outbox %v", m.posting, m.outbox)
	}
	if s := plain(m); !strings.Contains(s, "not sent: could not store the message") || !strings.Contains(s, "it is back in") {
		t.Fatalf("no notice:\n%s", s)
	}
}

// A reply the history could not store says so under it, and in the status line: the outcome
// shown is the outcome stored.
func TestAReplyNotStoredSaysSo(t *testing.T) {
	t.Parallel()
	m := streamingModel(t, storedExchanges(1), 100, 24)
	notStored := "not saved: the disk is full (/home/me/.local/share/parley/history.db): free space; the text is kept in /tmp/parley-recovery-1.jsonl"
	m, _ = deliver(m, chat.Event{Kind: chat.EventStarted, Attempt: 1}, delta("Here is the whole answer."),
		chat.Event{Kind: chat.EventFinished, FinishReason: "stop", NotStored: notStored})
	s := plain(m)
	if !strings.Contains(s, "not saved: the disk is full") || !m.noticeErr {
		t.Fatalf("no not-saved line:\n%s", s)
	}
	if m.active != nil {
		t.Fatal("the run did not end")
	}
	m.setNotice("", false) // the next message takes the notice away; the line under the reply stays
	if !strings.Contains(plain(m), "not saved: the disk is full") {
		t.Fatalf("the line under the reply went:\n%s", plain(m))
	}
}

// A message sent notes what the session runs on, so that -c goes on with it; the demo's runs
// note nothing (the demo is no profile to come back to).
func TestASentMessageNotesWhatTheSessionRunsOn(t *testing.T) {
	t.Parallel()
	db := historytest.Open(t)
	o := Options{DB: db, Client: offlineClient().WithModel("qwen3-coder"), Clock: chattest.New(clockStart)}
	m, _ := openModel(t, o, 80, 24)
	m = typeText(m, "hello")
	m, post := step(m, press("enter"))
	m, _ = step(m, execCmd(post, 5*time.Second)[0])
	s, err := db.Session(m.session.ID)
	if err != nil || s.Model != "qwen3-coder" || s.Profile != offlineClient().Endpoint().Profile() {
		t.Fatalf("session %+v, %v", s, err)
	}
}

// A message sent before the session read at start-up answers stays on the screen, its reply
// streaming on, when that read was made before the message was stored (a loaded machine).
// (Had the session held messages the screen had not shown, the send would be refused: session.go.)
func TestASendBeforeTheSessionLoadedStays(t *testing.T) {
	t.Parallel()
	o, _, _ := demoOptions(t, screenConfig{demo: queueable})
	m := New(o)
	m, _ = step(m, tea.WindowSizeMsg{Width: 120, Height: 30})
	stale := m.loadSession(o.Session.ID)() // read now, shown late
	d := newDriver(t, m)
	d.sendUntilStreaming("hello")
	d.send(stale)
	if n := d.m.transcript.Len(); n != 2 {
		t.Fatalf("%d messages on screen after the late read, want 2:\n%s", n, plain(d.m))
	}
	d.until("the reply", answered(t, 2))
	if r := lastReply(t, d.m); !strings.Contains(plain(d.m), "You · #1") || r.text == "" {
		t.Errorf("reply %q; screen:\n%s", r.text, plain(d.m))
	}
}
