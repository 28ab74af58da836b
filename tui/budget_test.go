package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"parley/agent"
	"parley/internal/chat"
	"parley/internal/demo"
)

// longSession opens a driven screen on a session of turns stored exchanges, each question and
// answer about 100 tokens, against a demo endpoint that says its window is window tokens as
// llama-server does; it waits for the conversation's size to be read.
func longSession(t *testing.T, turns, window int) (*driver, *demo.Server) {
	t.Helper()
	o, srv, _ := demoOptions(t, screenConfig{demo: demo.Options{Window: window}})
	for i := range turns {
		filler := strings.Repeat(fmt.Sprintf("turn %d ", i+1), 50)
		storeExchange(t, historyOf(o.DB), o.Session.ID, fmt.Sprintf("question %d: %s", i+1, filler), fmt.Sprintf("answer %d: %s", i+1, filler))
	}
	m, cmd := openModel(t, o, 120, 30)
	d := newDriver(t, m)
	d.exec(cmd)
	d.until("the conversation's size", func(m Model) bool { return m.budget.read })
	return d, srv
}

// sentContents are the contents of the messages of the last request srv received.
func sentContents(t *testing.T, srv *demo.Server) []string {
	t.Helper()
	got := srv.Received()
	if len(got) == 0 {
		t.Fatal("no request was sent")
	}
	var out []string
	for _, m := range got[len(got)-1].Messages {
		out = append(out, m.Content)
	}
	return out
}

// sentWith reports whether a message of sent starts with prefix.
func sentWith(sent []string, prefix string) bool {
	return slices.ContainsFunc(sent, func(s string) bool { return strings.HasPrefix(s, prefix) })
}

// The header says how full the window is and who said how big it is; before a send that
// compaction will trim, the line above the input names what it leaves out by the numbers the
// transcript shows.
func TestHeaderAndLeaveOutLineBeforeTheSend(t *testing.T) {
	t.Parallel()
	d, _ := longSession(t, 8, 1024)
	screen := plain(d.m)
	header, _, _ := strings.Cut(screen, "\n")
	plan := d.m.budget.plan
	room := agent.PreSendTarget(1024, 0)
	want := fmt.Sprintf("ctx ~%d/%d · %d%% (1024, llama-server)", plan.Size, room, plan.Size*100/room)
	if !strings.Contains(header, want) || plan.Size <= room || plan.Tokens > room {
		t.Fatalf("header %q, want %q: past 100%% of the prompt's three quarters, what is sent within them", header, want)
	}
	last := 0
	for i, drop := range plan.Drop {
		if drop {
			last = i + 1 // no system prompt: message i is shown as #i+1
		}
	}
	line := fmt.Sprintf("next send leaves out messages 1–%d · ~%s tok · p pins one", last, chat.FormatTokens(plan.LeftOut))
	if last < 2 || !strings.Contains(screen, line) {
		t.Fatalf("want %q above the input:\n%s", line, screen)
	}
	// The message being written is weighed when the draft settles, not per key.
	for _, r := range strings.Repeat("x", 400) {
		d.send(press(string(r)))
	}
	if d.m.budget.plan.Size != plan.Size {
		t.Error("a key planned the next send again")
	}
	d.send(draftTickMsg{sessionGen: d.m.sessionGen})
	if d.m.budget.plan.Size != plan.Size+100 {
		t.Errorf("the settled draft of 400 characters moved the plan from %d to %d tokens, want +100", plan.Size, d.m.budget.plan.Size)
	}
}

// A window nothing says leaves the header with the tokens alone, and no leave-out line.
func TestHeaderWithoutAWindowShowsTokens(t *testing.T) {
	t.Parallel()
	d, _ := longSession(t, 8, 0)
	screen := plain(d.m)
	header, _, _ := strings.Cut(screen, "\n")
	if !strings.Contains(header, fmt.Sprintf("ctx ~%d tok", d.m.budget.plan.Size)) || strings.Contains(header, "%") {
		t.Fatalf("header %q", header)
	}
	if strings.Contains(screen, "next send leaves out") {
		t.Fatalf("a leave-out line without a window:\n%s", screen)
	}
}

// p pins the selected message: it is marked, stored, kept by the next send though older
// turns are left out, and p again unpins it.
func TestPinnedMessageIsSentAfterCompaction(t *testing.T) {
	t.Parallel()
	d, srv := longSession(t, 8, 1024)
	d.selectReplies()
	for range 20 {
		if d.m.transcript.Number(d.m.transcript.Selected()) == 1 {
			break
		}
		d.send(press("k"))
	}
	first := d.m.transcript.Selected()
	d.send(press("p"))
	d.until("the pin", func(m Model) bool {
		msg, _ := m.transcript.Message(first)
		return msg.Pinned && !m.budget.plan.Drop[0]
	})
	d.until("the plan without it", func(m Model) bool { return strings.Contains(plain(m), "You · #1 · pinned") })
	if !strings.Contains(plain(d.m), "next send leaves out messages 2–") {
		t.Fatalf("the pinned message is still to be left out:\n%s", plain(d.m))
	}
	d.send(press("esc"))
	d.typeAndSend("and in short?")
	d.until("the answer", answered(t, 18))
	sent := sentContents(t, srv)
	if !sentWith(sent, "question 1:") || sentWith(sent, "answer 1:") || sentWith(sent, "question 2:") || !sentWith(sent, "and in short?") {
		t.Fatalf("sent %d messages; want the pinned question 1 and the new one, without answer 1 or question 2", len(sent))
	}
	if stored := liveMessages(t, historyOf(d.m.db), d.m.session.ID); !stored[0].Pinned || stored[1].Pinned {
		t.Fatal("the pin is not stored")
	}
	d.selectReplies()
	d.pressUntil("k", "the first question", func(m Model) bool { return m.transcript.Selected() == first })
	d.send(press("p"))
	d.until("the unpin", func(m Model) bool { msg, _ := m.transcript.Message(first); return !msg.Pinned })
	if stored := liveMessages(t, historyOf(d.m.db), d.m.session.ID); stored[0].Pinned {
		t.Fatal("p again does not unpin")
	}
}

// /compact says what it would leave out and does it only when asked again; the transcript then
// shows where it cut, and later requests leave those messages out.
func TestCompactPreviewsThenApplies(t *testing.T) {
	t.Parallel()
	d, srv := longSession(t, 8, 1024)
	d.typeAndSend("/compact")
	screen := plain(d.m)
	if !strings.Contains(screen, "/compact leaves out messages 1–") || d.m.input.Value() != "/compact" {
		t.Fatalf("no preview, or the command left the input:\n%s", screen)
	}
	if before, _ := d.m.db.CompactedBefore(d.m.session.ID); before != 0 {
		t.Fatal("the preview compacted")
	}
	d.send(press("enter"))
	d.until("the compaction", func(m Model) bool { return strings.Contains(plain(m), "compacted: messages 1–") })
	before, err := d.m.db.CompactedBefore(d.m.session.ID)
	if err != nil || before == 0 {
		t.Fatalf("not stored: %d, %v", before, err)
	}
	d.until("the size read again", func(m Model) bool { return m.budget.plan.Omitted == 0 })
	d.send(press("home"))
	if !strings.Contains(plain(d.m), "── compacted") {
		// The line sits above the first message kept; scroll until it shows.
		for i := 0; i < 40 && !strings.Contains(plain(d.m), "── compacted"); i++ {
			d.send(press("pgdown"))
		}
	}
	if !strings.Contains(plain(d.m), "── compacted") {
		t.Fatalf("the transcript does not show where /compact cut:\n%s", plain(d.m))
	}
	d.typeAndSend("what now?")
	d.until("the answer", answered(t, 18))
	sent := sentContents(t, srv)
	if sentWith(sent, "question 1:") || !sentWith(sent, "question 8:") || !sentWith(sent, "what now?") {
		t.Fatalf("sent %d messages: want the turns after the cut alone", len(sent))
	}
	if ctx, _ := historyOf(d.m.db).SessionContext(d.m.session.ID); len(ctx) != len(sent)+1 {
		t.Errorf("the history's context holds %d messages, the request %d and its reply", len(ctx), len(sent))
	}
}

// /compact N keeps the last N turns; /compact with nothing to leave out says so and does nothing.
func TestCompactKeepsTheLastTurns(t *testing.T) {
	t.Parallel()
	d, _ := longSession(t, 3, 0)
	d.typeAndSend("/compact")
	if !strings.Contains(plain(d.m), "nothing to compact") {
		t.Fatalf("want nothing to compact:\n%s", plain(d.m))
	}
	d.typeAndSend("/compact 1")
	if !strings.Contains(plain(d.m), "/compact leaves out messages 1–4 ·") {
		t.Fatalf("want the first two turns in the preview:\n%s", plain(d.m))
	}
	d.send(press("enter"))
	d.until("the compaction", func(m Model) bool { return strings.Contains(plain(m), "compacted: messages 1–4") })
	ctx, _ := historyOf(d.m.db).SessionContext(d.m.session.ID)
	if len(ctx) != 2 || !strings.HasPrefix(ctx[0].Content, "question 3:") {
		t.Fatalf("the context after /compact 1 holds %d messages", len(ctx))
	}
}

// Once the tools' servers have started, the header's estimate carries the schemas that every
// send offers, as the send's own compaction counts them.
func TestTheHeaderCountsTheOfferedTools(t *testing.T) {
	t.Parallel()
	const window = 32768
	d, srv, _, _ := toolScreenConfig(t, screenConfig{demo: demo.Options{Window: window}})
	d.typeAndSend("hello")
	d.until("the reply, and the size read after it", func(m Model) bool {
		return answered(t, 2)(m) && m.budget.read && len(m.budget.msgs) == 2
	})
	offered := d.m.tools.OfferedSoFar()
	tools := agent.ToolTokens(offered)
	if len(offered) == 0 || len(offered) != len(srv.Received()[0].Tools) || tools < 500 {
		t.Fatalf("%d tools known (%d tokens), %d offered in the request", len(offered), tools, len(srv.Received()[0].Tools))
	}
	next := append(slices.Clip(d.m.budget.msgs), chat.Message{Role: chat.RoleUser})
	want := agent.EstimateTokens(next) + tools
	header, _, _ := strings.Cut(plain(d.m), "\n")
	if d.m.budget.plan.Size != want || !strings.Contains(header, "ctx ~"+contextTokens(want)+"/") {
		t.Fatalf("planned %d tokens, want %d (%d of them the tools'); header %q", d.m.budget.plan.Size, want, tools, header)
	}
}

// On a small window whose last answer alone is past the prompt's room (llama-server -c 1024
// saying so through /props and /v1/models), the header, the line above the input and /compact
// read one plan: they name the same messages, every turn before the one typed next; once
// /compact applies, the line goes, a second /compact has nothing to do, and the request then
// sent is what the plan says: the new message alone, within the room the header shows.
func TestOnePlanBehindHeaderLineCompactAndRequest(t *testing.T) {
	t.Parallel()
	const window = 1024
	o, srv, _ := demoOptions(t, screenConfig{demo: demo.Options{Window: window}})
	storeExchange(t, historyOf(o.DB), o.Session.ID, "question 1: short", "answer 1: short")
	storeExchange(t, historyOf(o.DB), o.Session.ID, "question 2: long, please", "answer 2: "+strings.Repeat("word ", 700))
	m, cmd := openModel(t, o, 120, 30)
	d := newDriver(t, m)
	d.exec(cmd)
	d.until("the conversation's size", func(m Model) bool { return m.budget.read })

	room := agent.PreSendTarget(window, 0)
	header := func() string { h, _, _ := strings.Cut(plain(d.m), "\n"); return h }
	plan := d.m.budget.plan
	if !strings.Contains(header(), fmt.Sprintf("ctx ~%d/%d · %d%% (1024, llama-server)", plan.Size, room, plan.Size*100/room)) ||
		plan.Size*100/room <= 100 {
		t.Fatalf("header %q for a plan of %d tokens: want it past 100%% of %d", header(), plan.Size, room)
	}
	named := "messages 1–4 · ~" + chat.FormatTokens(plan.LeftOut) + " tok"
	if !strings.Contains(plain(d.m), "next send leaves out "+named) {
		t.Fatalf("want every stored turn in the line above the input:\n%s", plain(d.m))
	}
	d.typeAndSend("/compact")
	if !strings.Contains(plain(d.m), "/compact leaves out "+named) {
		t.Fatalf("/compact's preview names other messages than the line:\n%s", plain(d.m))
	}
	d.send(press("enter"))
	d.until("the compaction, and the plan after it", func(m Model) bool {
		return strings.Contains(plain(m), "compacted: messages 1–4") && m.budget.plan.Omitted == 0
	})
	if s := plain(d.m); strings.Contains(s, "next send leaves out") {
		t.Fatalf("after /compact the line still says the send leaves messages out:\n%s", s)
	}
	d.input("/compact")
	d.send(press("enter"))
	if s := plain(d.m); !strings.Contains(s, "nothing to compact") || strings.Contains(s, "leaves out") {
		t.Fatalf("a second /compact:\n%s", s)
	}
	d.send(press("ctrl+u"))

	d.input("what now?")
	d.send(draftTickMsg{sessionGen: d.m.sessionGen})
	plan = d.m.budget.plan
	if plan.Size > room || plan.Omitted != 0 || !strings.Contains(header(), fmt.Sprintf("ctx ~%d/%d ·", plan.Size, room)) {
		t.Fatalf("header %q, plan %+v: want the message alone, within %d", header(), plan, room)
	}
	d.send(press("enter"))
	d.until("the answer", func(m Model) bool { return settled(m) && len(srv.Received()) == 1 })
	sent := sentContents(t, srv)
	if len(sent) != 1 || sent[0] != "what now?" {
		t.Fatalf("sent %q: want the new message alone, as the plan said", sent)
	}
	if est := agent.EstimateTokens([]chat.Message{{Role: chat.RoleUser, Content: sent[0]}}); est != plan.Tokens {
		t.Errorf("the plan said %d tokens, the request is %d", plan.Tokens, est)
	}
}

// The header's gauges are labelled ("spent"), and go only when fewer than 24 columns would be
// left beside them; what does not fit is cut from the session's title first, so a fork's origin,
// the endpoint and the model stay.
func TestHeaderCutsTheTitleFirst(t *testing.T) {
	t.Parallel()
	styles := newTheme(true)
	told := []string{"ctx ~3.2k/8192 · 39% (8192, config)", spentLabel(agent.Spent{Tokens: 111})}
	title := "planning a trip to the coast in june"
	fork := `forked from "Trip planning" at 14:02`
	for _, c := range []struct {
		width int
		fork  string
		has   []string
		lacks []string
	}{
		{200, fork, []string{title + " · " + fork + " · work · gpt-4o ", "ctx ~3.2k", "spent 111 tok"}, nil},
		{150, fork, []string{"parley · planning a trip", "… · " + fork + " · work · gpt-4o ", "ctx ~3.2k", "spent 111 tok"}, []string{"june"}},
		{120, "", []string{"parley · planning a trip", "… · work · gpt-4o ", "ctx ~3.2k", "spent 111 tok"}, []string{"june"}},
		{60, "", []string{"parley · planning a trip", "· work · gpt-4o "}, []string{"ctx", "spent"}},
	} {
		ch := chrome{width: c.width, styles: &styles, title: title, fork: c.fork, where: "work · gpt-4o", state: "idle", told: told}
		h := ansi.Strip(ch.header())
		if w := lipgloss.Width(h); w != c.width {
			t.Errorf("at %d columns the header is %d wide: %q", c.width, w, h)
		}
		for _, want := range c.has {
			if !strings.Contains(h, want) {
				t.Errorf("at %d columns the header lacks %q: %q", c.width, want, h)
			}
		}
		for _, not := range c.lacks {
			if strings.Contains(h, not) {
				t.Errorf("at %d columns the header holds %q: %q", c.width, not, h)
			}
		}
	}
}
