package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/history"
	"parley/history/historytest"
	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/chat/chattest"
)

// No surprises, driven through Update: keys act only as the operator meant.

// answeredOffline returns a screen on a new session whose first exchange has just been
// answered, with the manual clock it runs on: the run ended at clockStart.
func answeredOffline(t *testing.T) (Model, *chattest.Clock, *history.DB) {
	t.Helper()
	db := historytest.Open(t)
	clock := chattest.New(clockStart)
	m, _ := openModel(t, Options{DB: db, Client: offlineClient(), Session: newSessionIn(t, db), Clock: clock}, 80, 24)
	m, _ = step(m, postedMsg{out: outgoing{text: "write a poem"}, modelName: "test-model", session: m.session,
		rcpt: stored.Receipt{AnchorID: 1, RunID: 1, ReplyID: 2}})
	m, _ = deliver(m, delta("Roses are red."), chat.Event{Kind: chat.EventFinished})
	if m.active != nil {
		t.Fatal("the run did not end")
	}
	return m, clock, db
}

func TestEscRightAfterAReplyIsNotSelect(t *testing.T) {
	t.Parallel()
	m, clock, _ := answeredOffline(t)
	clock.Advance(300 * time.Millisecond)
	m, _ = step(m, press("esc"))
	if m.focus != focusInput {
		t.Fatal("esc 300 ms after the reply ended selected replies")
	}
	var cmds []tea.Cmd
	for _, r := range "great, now rewrite it shorter" {
		var cmd tea.Cmd
		m, cmd = step(m, tea.KeyPressMsg{Code: r, Text: string(r)})
		cmds = append(cmds, cmd)
	}
	if m.input.Value() != "great, now rewrite it shorter" || m.posting || m.transcript.Len() != 2 {
		t.Fatalf("input %q, posting %v, %d messages: the sentence should be typed, nothing regenerated",
			m.input.Value(), m.posting, m.transcript.Len())
	}
	for _, cmd := range cmds {
		for _, msg := range execCmd(cmd, 10*time.Millisecond) {
			if _, ok := msg.(regeneratedMsg); ok {
				t.Fatal("a key regenerated the reply")
			}
		}
	}

	// Stopping a reply starts the guard again; past it, esc selects and says so.
	m.input.Reset()
	clock.Advance(selectGuard)
	m, _ = step(m, press("esc"))
	if m.focus != focusTranscript || !strings.Contains(plain(m), "SELECT — ") {
		t.Fatalf("esc %v after the reply did not select:\n%s", selectGuard+300*time.Millisecond, plain(m))
	}
}

func TestEscStopsAReplyThenWaitsBeforeSelecting(t *testing.T) {
	t.Parallel()
	m, clock, _ := answeredOffline(t)
	clock.Advance(time.Hour)
	m, _ = step(m, postedMsg{out: outgoing{text: "again"}, modelName: "test-model", session: m.session,
		rcpt: stored.Receipt{AnchorID: 3, RunID: 2, ReplyID: 4}})
	m, _ = deliver(m, delta("Violets"))
	m, _ = step(m, press("esc")) // stops the reply
	if !m.active.cancelling {
		t.Fatal("esc did not stop the reply")
	}
	m, _ = deliver(m, chat.Event{Kind: chat.EventCancelled})
	clock.Advance(500 * time.Millisecond)
	m, _ = step(m, press("esc")) // a second esc for the same stop
	if m.focus != focusInput {
		t.Fatal("a second esc 500 ms after stopping selected replies")
	}
}

func TestRegenerateAnEarlierReplyAsksOnce(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, storedExchanges(3), 80, 24)
	m, _ = step(m, press("esc"))
	m, _ = step(m, press("k")) // the newest question
	m, _ = step(m, press("k")) // the reply before it
	m, cmd := step(m, press("r"))
	if cmd != nil || m.posting || !strings.Contains(plain(m), "r again to regenerate from here — 2 later messages will be superseded") {
		t.Fatalf("the first r acted, or did not ask:\n%s", plain(m))
	}
	// Another key forgets the question.
	m = pressKeys(m, "j", "k")
	if m, cmd = step(m, press("r")); cmd != nil {
		t.Fatal("r after moving away and back regenerated without asking again")
	}
	if m, cmd = step(m, press("r")); cmd == nil || !m.posting {
		t.Fatal("the second r did not regenerate")
	}
	// The newest reply has nothing after it: r acts at once.
	m = loadedModel(t, storedExchanges(3), 80, 24)
	m, _ = step(m, press("esc"))
	if _, cmd = step(m, press("r")); cmd == nil {
		t.Fatal("r on the newest reply asked")
	}
}

func TestCtrlCClearsADraftBeforeQuitting(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, storedExchanges(2), 80, 24)
	m = typeText(m, "half a thought")
	m, cmd := step(m, press("ctrl+c"))
	if quits(cmd) || !m.input.Empty() || !strings.Contains(plain(m), "draft cleared · ctrl+p brings it back · ctrl+c again quits") {
		t.Fatalf("ctrl+c with a draft: input %q\n%s", m.input.Value(), plain(m))
	}
	// ctrl+p brings the draft back first, then ↑ (or ctrl+p) the messages sent, newest first;
	// ↓ walks back.
	var got []string
	for _, k := range []string{"ctrl+p", "up", "ctrl+p"} {
		m, _ = step(m, press(k))
		got = append(got, m.input.Value())
	}
	if strings.Join(got, "|") != "half a thought|question 2|question 1" {
		t.Fatalf("↑ walked %q", got)
	}
	m, _ = step(m, press("up")) // nothing older: stays
	m, _ = step(m, press("down"))
	if m.input.Value() != "question 2" {
		t.Fatalf("↓ gave %q", m.input.Value())
	}
	m = pressKeys(m, "down", "down")
	if !m.input.Empty() {
		t.Fatalf("↓ past the newest gave %q, want the empty input", m.input.Value())
	}
	// In a text of one's own, ↑ is the textarea's.
	m = typeText(m, "line one")
	m, _ = step(m, press("up"))
	if m.input.Value() != "line one" {
		t.Fatalf("↑ in a draft replaced it with %q", m.input.Value())
	}
	m, _ = step(m, press("ctrl+c"))
	if _, cmd = step(m, press("ctrl+c")); !quits(cmd) {
		t.Fatal("ctrl+c on an empty input did not quit")
	}
}

// The notice of a cleared draft promises that ctrl+c again quits only where it would: with a
// failed reply offered, that press asks first.
func TestCtrlCClearingADraftSaysWhatTheNextPressDoes(t *testing.T) {
	t.Parallel()
	msgs := storedExchanges(2)
	msgs[3].Status = chat.StatusInterrupted
	m := loadedModel(t, msgs, 100, 24)
	m = typeText(m, "half a thought")
	m, cmd := step(m, press("ctrl+c"))
	if quits(cmd) || !m.input.Empty() || !strings.Contains(plain(m), "draft cleared · ctrl+p brings it back") {
		t.Fatalf("ctrl+c with a draft and an offer: input %q\n%s", m.input.Value(), plain(m))
	}
	if strings.Contains(plain(m), "again quits") {
		t.Fatalf("the notice promises that ctrl+c again quits, but it asks:\n%s", plain(m))
	}
	if m, cmd = step(m, press("ctrl+c")); quits(cmd) || m.overlays.asked() != "the last reply can be sent again (enter): ctrl+c again quits without it" {
		t.Fatalf("ctrl+c after the cleared draft: asked %q", m.overlays.asked())
	}
}

func TestEscWithAQueueKeepsIt(t *testing.T) {
	t.Parallel()
	d, srv, _, _ := demoScreen(t, screenConfig{demo: queueable})
	d.queueBehind("first", "second", "third")
	d.send(press("esc"))
	d.until("the reply to stop", func(m Model) bool { return m.active == nil })
	d.pump(300 * time.Millisecond)
	if srv.Requests() != 1 || len(d.m.queue) != 2 {
		t.Fatalf("%d requests, %d queued after esc: nothing should be sent", srv.Requests(), len(d.m.queue))
	}
	s := plain(d.m)
	if !strings.Contains(s, "stopped · 2 queued messages kept, enter sends the next") ||
		!strings.Contains(s, "queued: held since the stop, enter sends it") || !strings.Contains(s, "enter send the next queued") {
		t.Fatalf("esc does not say what it did:\n%s", s)
	}
	d.send(press("enter"))
	d.until("both held messages answered", answered(t, 6))
	if srv.Requests() != 3 {
		t.Fatalf("%d requests, want 3", srv.Requests())
	}
}

func TestNewDuringAReplyAsksFirst(t *testing.T) {
	t.Parallel()
	d, _, db := streamingScreen(t, "a long one")
	first, run := d.m.session.ID, d.m.active.rcpt
	d.typeAndSend("/new")
	if d.m.session.ID != first || d.m.active == nil || d.m.input.Value() != "/new" ||
		!strings.Contains(plain(d.m), "a reply is being written: enter again stops it and opens a new session") {
		t.Fatalf("/new during a reply did not ask:\n%s", plain(d.m))
	}
	d.send(press("enter"))
	d.until("the new session", func(m Model) bool { return m.session.ID == "" && m.transcript.Len() == 0 })
	d.until("the run stored cancelled", func(Model) bool {
		r, err := db.Run(run.RunID)
		return err == nil && r.Status == chat.StatusCancelled
	})
}

func TestLinesThatAreNoCommandAreSentAndErrorsKeepTheInput(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, storedExchanges(1), 80, 24)
	m.client = nil
	m = typeText(m, "/model bigger")
	m, _ = step(m, press("enter"))
	if m.input.Value() != "/model bigger" || !m.noticeErr {
		t.Fatalf("a failed command cleared the input: %q, notice %q", m.input.Value(), m.notice)
	}
	db := historytest.Open(t)
	m, _ = openOffline(t, db, stored.Session{}, 80, 24)
	for _, c := range []struct{ line, want string }{
		{"/etc/hosts: what is this file for?", "/etc/hosts: what is this file for?"},
		{"//help", "/help"},
		{"/ what", "/ what"},
	} {
		m = typeText(m, c.line)
		m = runCmds(step(m, press("enter")))
		m.active, m.queue = nil, nil // the offline endpoint is never asked
		if got := m.transcript.OperatorTexts(); len(got) == 0 || got[0] != c.want || !m.input.Empty() {
			t.Errorf("%q: sent %q, input %q; want %q sent", c.line, got, m.input.Value(), c.want)
		}
	}
}
