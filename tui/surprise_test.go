package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"parley/agent/chat"
	"parley/agent/chat/chattest"
	"parley/agent/demo"
	"parley/history"
	"parley/history/historytest"
)

// No surprises, driven through Update: keys act only as the operator meant, and nothing typed
// or read is lost.

// answeredOffline returns a screen on a new session whose first exchange has just been
// answered, with the manual clock it runs on: the run ended at clockStart.
func answeredOffline(t *testing.T) (Model, *chattest.Clock, *history.DB) {
	t.Helper()
	db := historytest.Open(t)
	clock := chattest.New(clockStart)
	m, _ := openModel(t, Options{DB: db, Client: offlineClient(), Session: newSessionIn(t, db), Clock: clock}, 80, 24)
	m, _ = step(m, postedMsg{text: "write a poem", modelName: "test-model", session: m.session,
		rcpt: history.Receipt{AnchorID: 1, RunID: 1, ReplyID: 2}})
	m, _ = deliver(m, delta("Roses are red."), chat.Event{Kind: chat.EventFinished})
	if m.active != nil {
		t.Fatal("the run did not end")
	}
	return m, clock, db
}

func TestEscRightAfterAReplyIsNotSelect(t *testing.T) {
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
	m, clock, _ := answeredOffline(t)
	clock.Advance(time.Hour)
	m, _ = step(m, postedMsg{text: "again", modelName: "test-model", session: m.session,
		rcpt: history.Receipt{AnchorID: 3, RunID: 2, ReplyID: 4}})
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
	m := loadedModel(t, storedExchanges(3), 80, 24)
	m, _ = step(m, press("esc"))
	m, _ = step(m, press("k")) // the newest question
	m, _ = step(m, press("k")) // the reply before it
	m, cmd := step(m, press("r"))
	if cmd != nil || m.posting || !strings.Contains(plain(m), "r again to regenerate from here — 2 later messages will be superseded") {
		t.Fatalf("the first r acted, or did not ask:\n%s", plain(m))
	}
	// Another key forgets the question.
	m, _ = step(m, press("j"))
	m, _ = step(m, press("k"))
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
	m := loadedModel(t, storedExchanges(2), 80, 24)
	m = typeText(m, "half a thought")
	m, cmd := step(m, press("ctrl+c"))
	if quits(cmd) || m.input.Value() != "" || !strings.Contains(plain(m), "draft cleared · ↑ brings it back · ctrl+c again quits") {
		t.Fatalf("ctrl+c with a draft: input %q\n%s", m.input.Value(), plain(m))
	}
	// ↑ brings the draft back first, then the messages sent, newest first; ↓ walks back.
	var got []string
	for range 3 {
		m, _ = step(m, press("up"))
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
	m, _ = step(m, press("down"))
	m, _ = step(m, press("down"))
	if m.input.Value() != "" {
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

func TestDraftsSurviveAQuit(t *testing.T) {
	db := historytest.Open(t)
	s := newSessionIn(t, db)
	storeExchange(t, db, s.ID, "first question", "first answer")
	open := func(s history.Session) Model {
		m, _ := openOffline(t, db, s, 80, 24)
		return m
	}
	m := typeText(open(s), "a thought to finish later")
	m, _ = step(m, press("ctrl+c"))
	if _, cmd := step(m, press("ctrl+c")); !quits(cmd) {
		t.Fatal("ctrl+c twice did not quit")
	}
	if m = open(s); m.input.Value() != "a thought to finish later" {
		t.Fatalf("reopened with %q", m.input.Value())
	}

	// Stored a little after typing stops, too: a closed terminal loses at most that.
	m, cmd := step(m, press("!"))
	for _, msg := range execCmd(cmd, 2*draftDelay) {
		if tick, ok := msg.(draftTickMsg); ok {
			m, cmd = step(m, tick)
			execCmd(cmd, time.Second) // stores it
		}
	}
	if got, err := db.Draft(s.ID); err != nil || got != "a thought to finish later!" {
		t.Fatalf("stored draft %q, %v", got, err)
	}

	// A new session's draft waits under no id, and moves to the session its first message
	// stores.
	m = typeText(open(history.Session{}), "for a new session")
	if _, cmd := step(m, press("ctrl+d")); quits(cmd) {
		t.Fatal("ctrl+d quit with a draft")
	}
	m, _ = step(m, press("ctrl+c"))
	m, cmd = step(m, press("ctrl+c"))
	if !quits(cmd) {
		t.Fatal("no quit")
	}
	m = open(history.Session{})
	if m.input.Value() != "for a new session" {
		t.Fatalf("a new session opened with %q", m.input.Value())
	}
	if ss, _ := db.Sessions(); len(ss) != 1 {
		t.Fatalf("%d sessions listed: opening parley stored one", len(ss))
	}
}

func TestNewSessionIsStoredWithItsFirstMessage(t *testing.T) {
	o, _, _ := demoOptions(t, screenConfig{})
	o.Session = history.Session{}
	m, _ := openModel(t, o, 100, 30)
	d := newDriver(t, m)
	if ss, _ := o.DB.Sessions(); len(ss) != 0 {
		t.Fatal("opening the screen stored a session")
	}
	d.typeAndSend("hello there")
	d.until("the reply", answered(t, 2))
	ss, err := o.DB.Sessions()
	if err != nil || len(ss) != 1 || ss[0].ID != d.m.session.ID || ss[0].Title != "hello there" {
		t.Fatalf("sessions %+v, %v; screen on %q", ss, err, d.m.session.ID)
	}
}

func TestEscWithAQueueKeepsIt(t *testing.T) {
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
	d, _, _, db := demoScreen(t, screenConfig{demo: cancellable})
	d.typeAndSend("a long one")
	d.until("the reply to stream", func(m Model) bool { return m.active != nil && m.active.gotDelta })
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

func TestUnknownSlashCommandIsSentAndErrorsKeepTheInput(t *testing.T) {
	m := loadedModel(t, storedExchanges(1), 80, 24)
	m.client = nil
	m = typeText(m, "/model bigger")
	m, _ = step(m, press("enter"))
	if m.input.Value() != "/model bigger" || !m.noticeErr {
		t.Fatalf("a failed command cleared the input: %q, notice %q", m.input.Value(), m.notice)
	}
	db := historytest.Open(t)
	m, _ = openOffline(t, db, history.Session{}, 80, 24)
	for _, c := range []struct{ line, want string }{
		{"/etc/hosts: what is this file for?", "/etc/hosts: what is this file for?"},
		{"//help", "/help"},
		{"/ what", "/ what"},
	} {
		m = typeText(m, c.line)
		m = runCmds(step(m, press("enter")))
		m.active, m.queue = nil, nil // the offline endpoint is never asked
		if got := m.transcript.OperatorTexts(); len(got) == 0 || got[0] != c.want || m.input.Value() != "" {
			t.Errorf("%q: sent %q, input %q; want %q sent", c.line, got, m.input.Value(), c.want)
		}
	}
}

func TestTier2RetryThatProducesNothingLeavesThePartialReply(t *testing.T) {
	d, srv, clock, db := demoScreen(t, tier2Config(demo.Fault{CutAfter: 12}, demo.Overloaded()))
	d.typeAndSend("hello")
	d.until("the retry to arm", armed)
	partial := lastReply(t, d.m)
	text := partial.text.String()
	if len(text) < 20 || !strings.Contains(plain(d.m), "✗ cut off here · Network error") {
		t.Fatalf("the cut reply is not shown as cut off:\n%s", plain(d.m))
	}
	d.advance(clock, time.Second)
	d.advance(clock, time.Second)
	d.until("the second retry to arm", func(m Model) bool { return armed(m) && m.tier2.attempt == 2 })
	if srv.Requests() != 2 || lastReply(t, d.m) != partial || !strings.Contains(plain(d.m), text[:20]) ||
		!strings.Contains(plain(d.m), "retry 1 failed: Provider overloaded") {
		t.Fatalf("%d requests; the partial reply should stay through the countdown:\n%s", srv.Requests(), plain(d.m))
	}
	if live := liveMessages(t, db, d.m.session.ID); len(live) != 2 || live[1].ID != partial.message.ID {
		t.Fatalf("live %+v: the empty attempt replaced the partial reply", live)
	}
	for range 4 {
		d.advance(clock, time.Second)
	}
	d.until("the reply", func(m Model) bool { return settled(m) && lastReply(t, m).message.Status == chat.StatusSucceeded })
	if d.m.transcript.Len() != 2 || strings.Contains(plain(d.m), "cut off") {
		t.Fatalf("the new reply should replace the partial one:\n%s", plain(d.m))
	}
	// The versions are the partial reply and the new one: the attempt that produced nothing
	// is none.
	clock.Advance(selectGuard)
	d.selectReplies()
	d.send(press("["))
	d.until("the versions", func(m Model) bool { return m.focus == focusVersions })
	if s := plain(d.m); !strings.Contains(s, "Version 1/2 · superseded") || !strings.Contains(s, text[:20]) {
		t.Fatalf("versions:\n%s", s)
	}
}

func TestNoticesAndHelpFit40Columns(t *testing.T) {
	m := loadedModel(t, storedExchanges(1), 40, 40)
	m, _ = step(m, press("?"))
	s := plain(m)
	for _, group := range fullKeys().FullHelp() {
		for _, b := range group {
			if !strings.Contains(s, b.Help().Key+" "+strings.Fields(b.Help().Desc)[0]) {
				t.Errorf("the full help at 40 columns lacks %q", b.Help().Key)
			}
		}
	}
	// The session's name in the header may be cut; nothing from the input down is.
	if below := s[strings.Index(s, "┃"):]; strings.Contains(strings.ReplaceAll(below, "/demo …", ""), "…") ||
		!strings.Contains(below, "? lists keys") {
		t.Errorf("something was cut:\n%s", below)
	}
	for _, l := range strings.Split(s, "\n") {
		if w := len([]rune(l)); w > 40 {
			t.Errorf("line of %d columns: %q", w, l)
		}
	}
	m, _ = step(m, press("?"))
	m, _ = step(m, noticeMsg{text: "usage: /demo overload [N] | ratelimit DURATION | drop N | badkey | context N [FLAVOUR] | off | status", err: true})
	if s := plain(m); !strings.Contains(strings.Join(strings.Fields(s), " "), "| off | status") {
		t.Fatalf("the notice was cut:\n%s", s)
	}
}

func TestWrappedCodeKeepsItsIndentation(t *testing.T) {
	long := "fmt.Println(\"a string long enough to be wrapped at forty columns, and then some\")"
	text := "Here:\n\n```go\nfunc main() {\n\tif true {\n\t\t" + long + "\n\t}\n}\n```\n"
	var md markdown
	lines := md.full(text, 40, true)
	var parts []string
	for _, l := range lines {
		if p := strings.TrimRight(ansi.Strip(l), " "); strings.Contains(p, "fmt.Println") || strings.Contains(p, "then some") ||
			strings.Contains(p, "wrapped at") {
			parts = append(parts, p)
		}
	}
	if len(parts) < 2 {
		t.Fatalf("the long line was not wrapped: %q", lines)
	}
	indent := len(parts[0]) - len(strings.TrimLeft(parts[0], " "))
	for _, p := range parts[1:] {
		if got := len(p) - len(strings.TrimLeft(p, " ")); got < indent {
			t.Fatalf("a continuation starts at column %d, the line at %d:\n%s", got, indent, strings.Join(parts, "\n"))
		}
	}
	for _, l := range lines {
		if w := len([]rune(ansi.Strip(l))); w > 40 {
			t.Fatalf("line of %d columns: %q", w, ansi.Strip(l))
		}
	}
	// An operator's pasted code keeps its indentation too.
	m := loadedModel(t, []history.Message{{ID: 1, Role: history.RoleUser, Content: "    " + long}}, 40, 20)
	for _, l := range strings.Split(plain(m), "\n") {
		if strings.Contains(l, "then some") && !strings.HasPrefix(l, "        ") {
			t.Fatalf("the wrapped line lost its indentation: %q\n%s", l, plain(m))
		}
	}
}
