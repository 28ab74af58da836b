package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"parley/agent/chat"
	"parley/history"
)

// storedExchanges returns n finished question/answer pairs as the database would return them.
func storedExchanges(n int) []history.Message {
	var msgs []history.Message
	for i := range n {
		id := int64(2*i + 1)
		msgs = append(msgs,
			history.Message{ID: id, Role: history.RoleUser, Content: fmt.Sprintf("question %d", i+1)},
			history.Message{ID: id + 1, Role: history.RoleAssistant, AnchorID: id, RunID: int64(i + 1),
				Status: chat.StatusSucceeded, Model: "test-model",
				Content: fmt.Sprintf("Answer **%d**, in a paragraph.", i+1)})
	}
	return msgs
}

// loaded returns a model showing msgs, without a database.
func loaded(t testing.TB, msgs []history.Message, w, h int) Model {
	t.Helper()
	m := New(Options{Client: offlineClient(), Session: history.Session{ID: "s1", Title: "test session"}})
	m, _ = step(m, tea.WindowSizeMsg{Width: w, Height: h})
	m, _ = step(m, sessionLoadedMsg{session: m.session, msgs: msgs})
	return m
}

// streaming returns a model whose last reply is being written by an active run.
func streaming(t testing.TB, msgs []history.Message, w, h int) Model {
	t.Helper()
	m := loaded(t, msgs, w, h)
	next := int64(len(msgs) + 1)
	m, _ = step(m, postedMsg{text: "and now?", modelName: "test-model", session: m.session,
		rcpt: history.Receipt{AnchorID: next, RunID: next, ReplyID: next + 1}})
	if m.active == nil {
		t.Fatal("no run started")
	}
	return m
}

// deliver hands the active run a batch of events.
func deliver(m Model, evs ...chat.Event) (Model, tea.Cmd) {
	return step(m, runEventsMsg{tag: m.active.tag, events: evs, ch: make(chan chat.Event)})
}

func delta(s string) chat.Event { return chat.Event{Kind: chat.EventDelta, Text: s} }

func TestEscMovesFocusAndSelectsNewestReply(t *testing.T) {
	m := loaded(t, storedExchanges(3), 80, 24)
	if m.focus != focusInput {
		t.Fatal("the input should have the focus at start")
	}
	m, _ = step(m, press("esc"))
	if m.focus != focusTranscript {
		t.Fatal("esc without a run should move the focus to the transcript")
	}
	if got := m.transcript.Selected(); got != 6 {
		t.Fatalf("selected %d, want the newest reply 6", got)
	}
	for _, k := range []string{"up", "k"} {
		before := m.transcript.Selected()
		m, _ = step(m, press(k))
		if got := m.transcript.Selected(); got != before-2 {
			t.Fatalf("%s: selected %d, want the previous reply %d", k, got, before-2)
		}
	}
	m, _ = step(m, press("k")) // already the first reply: stays
	if got := m.transcript.Selected(); got != 2 {
		t.Fatalf("selected %d, want 2", got)
	}
	m, _ = step(m, press("j"))
	m, _ = step(m, press("down"))
	if got := m.transcript.Selected(); got != 6 {
		t.Fatalf("selected %d, want 6", got)
	}
	// Letters typed in the transcript never reach the input.
	m, _ = step(m, press("x"))
	m, _ = step(m, press("q"))
	if v := m.input.Value(); v != "" {
		t.Fatalf("typed keys leaked into the input: %q", v)
	}
	if !strings.Contains(plain(m), "▌ Assistant") {
		t.Fatalf("the selected reply is not marked:\n%s", plain(m))
	}
	for _, k := range []string{"i", "tab", "enter"} {
		m, _ = step(m, press(k))
		if m.focus != focusInput || m.transcript.Selected() != 0 {
			t.Fatalf("%s should return to the input and clear the selection", k)
		}
		m, _ = step(m, press("esc"))
	}
}

func TestInputKeys(t *testing.T) {
	m := loaded(t, nil, 80, 24)
	m = typeText(m, "one")
	for i, k := range []string{"shift+enter", "alt+enter", "ctrl+j"} {
		m, _ = step(m, press(k))
		m = typeText(m, fmt.Sprint(i))
	}
	if got, want := m.input.Value(), "one\n0\n1\n2"; got != want {
		t.Fatalf("input %q, want %q", got, want)
	}
	// ? and ctrl+d are text or editing keys while the input holds text.
	m = typeText(m, "?")
	if m.help.ShowAll || !strings.HasSuffix(m.input.Value(), "?") {
		t.Fatal("? should be typed into a non-empty input")
	}
	m, _ = step(m, press("home"))
	m, cmd := step(m, press("ctrl+d"))
	if msgs := execCmd(cmd, 100*time.Millisecond); len(msgs) > 0 {
		if _, quit := msgs[0].(tea.QuitMsg); quit {
			t.Fatal("ctrl+d quit with text in the input")
		}
	}
	// A large bracketed paste arrives whole.
	m.input.Reset()
	big := strings.Repeat("pasted line with some words\n", 3000)
	m, _ = step(m, tea.PasteMsg{Content: big})
	if m.input.Value() != big {
		t.Fatalf("paste kept %d of %d bytes", len(m.input.Value()), len(big))
	}
	if h := strings.Count(m.View().Content, "\n") + 1; h != 24 {
		t.Fatalf("screen is %d lines with a large input, want 24", h)
	}
}

func TestHelpToggle(t *testing.T) {
	m := loaded(t, nil, 100, 24)
	short := plain(m)
	if !strings.Contains(short, "enter send") || strings.Contains(short, "previous reply") {
		t.Fatalf("short help should list the input's keys only:\n%s", short)
	}
	m, _ = step(m, press("?"))
	if !m.help.ShowAll || m.input.Value() != "" {
		t.Fatal("? on an empty input should open the full help")
	}
	full := plain(m)
	for _, want := range []string{"newline", "scroll up", "follow"} {
		if !strings.Contains(full, want) {
			t.Fatalf("full help lacks %q:\n%s", want, full)
		}
	}
	if h := strings.Count(m.View().Content, "\n") + 1; h != 24 {
		t.Fatalf("screen is %d lines with the full help, want 24", h)
	}
}

func TestQuitKeys(t *testing.T) {
	db := openDB(t)
	m := newModel(t, db, offlineClient(), nil, 80, 24)
	_, cmd := step(m, press("ctrl+c"))
	if !quits(cmd) {
		t.Fatal("ctrl+c without a run should quit")
	}
	_, cmd = step(m, press("ctrl+d"))
	if !quits(cmd) {
		t.Fatal("ctrl+d on an empty input should quit")
	}
	m = streaming(t, storedExchanges(1), 80, 24)
	m, cmd = step(m, press("ctrl+c"))
	if quits(cmd) || !m.active.cancelling {
		t.Fatal("ctrl+c during a run should cancel it, not quit")
	}
}

// quits reports whether cmd ends the program.
func quits(cmd tea.Cmd) bool {
	for _, msg := range execCmd(cmd, time.Second) {
		if _, ok := msg.(tea.QuitMsg); ok {
			return true
		}
	}
	return false
}

func TestStreamingRendersPerFrame(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)}
	m := streaming(t, storedExchanges(2), 80, 24)
	m.clock = clock
	m, cmd := deliver(m, chat.Event{Kind: chat.EventStarted, Attempt: 1, MaxAttempts: 3})
	if !strings.Contains(plain(m), "waiting for the reply") {
		t.Fatalf("no waiting status:\n%s", plain(m))
	}
	// The first text shows at once; text within the same frame interval waits for the frame.
	m, _ = deliver(m, delta("Hi. "))
	if !strings.Contains(plain(m), "Hi.") || m.framePending {
		t.Fatalf("the first delta should show at once:\n%s", plain(m))
	}
	clock.now = clock.now.Add(frameInterval / 3)
	m, cmd = deliver(m, delta("Hello "), delta("**world**"))
	if cmd == nil || !m.framePending {
		t.Fatal("a delta within a frame interval should schedule a frame")
	}
	if strings.Contains(plain(m), "Hello") {
		t.Fatal("deltas should wait for the frame before rendering")
	}
	clock.now = clock.now.Add(frameInterval)
	m, _ = step(m, frameMsg{tag: m.active.tag})
	if !strings.Contains(plain(m), "Hi. Hello world") {
		t.Fatalf("frame did not render the reply:\n%s", plain(m))
	}
	// A frame interval after the last render, a batch of deltas renders as it comes.
	clock.now = clock.now.Add(frameInterval)
	m, _ = deliver(m, delta(" Then"))
	if !strings.Contains(plain(m), "Hello world Then") || m.framePending {
		t.Fatalf("a batch a frame after the last render should show at once:\n%s", plain(m))
	}
	if !strings.Contains(plain(m), "streaming") {
		t.Fatal("header should say streaming")
	}
	// A frame of another run is ignored but clears the pending flag.
	m, _ = deliver(m, delta(" again"))
	m, _ = step(m, frameMsg{tag: m.active.tag + 7})
	if strings.Contains(plain(m), "again") || m.framePending {
		t.Fatal("stale frame handled wrongly")
	}
	m, _ = deliver(m, chat.Event{Kind: chat.EventFinished, FinishReason: "stop"})
	if m.active != nil {
		t.Fatal("run still active after EventFinished")
	}
	if !strings.Contains(plain(m), "Hello world Then again") || strings.Contains(plain(m), "**") {
		t.Fatalf("finished reply not rendered as markdown:\n%s", plain(m))
	}
}

func TestModelOutputIsSanitized(t *testing.T) {
	m := streaming(t, nil, 80, 24)
	m, _ = deliver(m, delta("safe \x1b]0;evil title\x07text \x1b]52;c;cHduZWQ=\x1b\\and \x1b[2J\x1b[31mred\u009b1m"),
		chat.Event{Kind: chat.EventFinished})
	out := m.View().Content
	for _, bad := range []string{"\x1b]", "\x07", "\x1b[2J", "evil", "cHduZWQ", "\u009b"} {
		if strings.Contains(out, bad) {
			t.Fatalf("screen contains %q", bad)
		}
	}
	if !strings.Contains(ansi.Strip(out), "safe text and red") {
		t.Fatalf("text lost:\n%s", plain(m))
	}
}

func TestTier1StatusAndFailure(t *testing.T) {
	m := streaming(t, nil, 100, 24)
	over := chat.Classification{Retryable: true, Class: chat.Overloaded, Label: "Provider overloaded",
		Message: "The service may be temporarily overloaded, please try again later"}
	m, _ = deliver(m, chat.Event{Kind: chat.EventStarted, Attempt: 1, MaxAttempts: 3},
		chat.Event{Kind: chat.EventRetrying, Attempt: 2, MaxAttempts: 3, Wait: 1200 * time.Millisecond, Class: over})
	if s := plain(m); !strings.Contains(s, "Provider overloaded — reconnecting, attempt 2/3 in 2s") || !strings.Contains(s, "reconnecting") {
		t.Fatalf("no Tier 1 status:\n%s", s)
	}
	m, _ = deliver(m, chat.Event{Kind: chat.EventStarted, Attempt: 2, MaxAttempts: 3},
		chat.Event{Kind: chat.EventFailed, Class: over})
	s := plain(m)
	if !strings.Contains(s, "✗ Provider overloaded — The service may be temporarily overloaded") {
		t.Fatalf("failure not shown with label and message:\n%s", s)
	}
	if strings.Contains(s, "reconnecting") || m.active != nil {
		t.Fatal("status not cleared after the run ended")
	}
}

func TestStaleRunEventsAreIgnored(t *testing.T) {
	m := streaming(t, nil, 80, 24)
	id := m.active.tag
	ch := make(chan chat.Event)
	m, cmd := step(m, runEventsMsg{tag: id + 1, events: []chat.Event{delta("ghost")}, ch: ch})
	if cmd == nil {
		t.Fatal("a stale run that has not ended should still be drained")
	}
	m, cmd = step(m, runEventsMsg{tag: id + 1, events: []chat.Event{{Kind: chat.EventCancelled}}, ch: ch})
	if cmd != nil {
		t.Fatal("an ended stale run should not be read again")
	}
	m, _ = step(m, frameMsg{tag: id})
	if strings.Contains(plain(m), "ghost") || m.active == nil || m.active.tag != id {
		t.Fatal("a stale run's events changed the screen")
	}
}

func TestReadEventsBatchesAndKeepsTerminal(t *testing.T) {
	ch := make(chan chat.Event, 2000)
	var want strings.Builder
	for i := range 1200 {
		ch <- delta(fmt.Sprint(i, " "))
		want.WriteString(fmt.Sprint(i, " "))
	}
	ch <- chat.Event{Kind: chat.EventFinished}
	ch <- delta("after the end")
	// Everything up to the terminal event is ready: one message carries it all, the deltas
	// joined into one.
	msg := readEvents(3, ch)().(runEventsMsg)
	if msg.tag != 3 || msg.closed || len(msg.events) != 2 {
		t.Fatalf("batch of %d events (closed %v), want the joined deltas and the end", len(msg.events), msg.closed)
	}
	if d := msg.events[0]; d.Kind != chat.EventDelta || d.Text != want.String() || !msg.events[1].Terminal() {
		t.Fatal("deltas lost or reordered, or the end missing")
	}
	if len(ch) != 1 {
		t.Fatal("the reader took events after the terminal one")
	}
	close(ch)
	<-ch
	if msg := readEvents(3, ch)().(runEventsMsg); !msg.closed || len(msg.events) != 0 {
		t.Fatalf("closed channel: %+v", msg)
	}
	// A stream that closes after deltas hands them over with the close.
	cut := make(chan chat.Event, 2)
	cut <- delta("x")
	cut <- delta("y")
	close(cut)
	if msg := readEvents(3, cut)().(runEventsMsg); !msg.closed || len(msg.events) != 1 || msg.events[0].Text != "xy" {
		t.Fatalf("deltas before the close: %+v", msg)
	}
}

// A batch of deltas ends when its window has passed, though the stream goes on; any other
// event is handed over at once.
func TestReadEventsWindow(t *testing.T) {
	ch := make(chan chat.Event)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for _, ev := range []chat.Event{{Kind: chat.EventStarted, Attempt: 1}, delta("a"), delta("b")} {
			ch <- ev
		}
		<-stop // the stream stays open and silent
	}()
	if msg := readEvents(1, ch)().(runEventsMsg); len(msg.events) != 1 || msg.events[0].Kind != chat.EventStarted {
		t.Fatalf("first batch %+v, want EventStarted alone", msg.events)
	}
	done := make(chan runEventsMsg)
	go func() { done <- readEvents(1, ch)().(runEventsMsg) }()
	select {
	case msg := <-done:
		if len(msg.events) != 1 || msg.events[0].Text != "ab" || msg.closed {
			t.Fatalf("second batch %+v, want the two deltas joined", msg.events)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a batch of deltas waited for more than its window")
	}
}

func TestFollowModeAndScrolling(t *testing.T) {
	m := streaming(t, storedExchanges(20), 80, 20)
	m, _ = deliver(m, delta("first words"))
	m, _ = step(m, frameMsg{tag: m.active.tag})
	if !strings.Contains(plain(m), "first words") {
		t.Fatal("follow mode should show the streaming reply")
	}
	m, _ = step(m, press("pgup"))
	if m.transcript.Following() {
		t.Fatal("pgup should stop following")
	}
	before := plain(m)
	if strings.Contains(before, "first words") || !strings.Contains(before, "scrolled up") {
		t.Fatalf("pgup did not scroll away:\n%s", before)
	}
	m, _ = deliver(m, delta("\n\nmore and more\n\nand more"))
	m, _ = step(m, frameMsg{tag: m.active.tag})
	if plain(m) != before {
		t.Fatal("new text moved the window while scrolled up")
	}
	m, _ = step(m, tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	if plain(m) == before {
		t.Fatal("the mouse wheel did not scroll")
	}
	m, _ = step(m, press("home"))
	if !strings.Contains(plain(m), "question 1") {
		t.Fatalf("home should show the first message:\n%s", plain(m))
	}
	for range 50 {
		m, _ = step(m, press("pgdown"))
	}
	if !m.transcript.Following() || !strings.Contains(plain(m), "and more") {
		t.Fatal("scrolling to the bottom should follow again")
	}
	m, _ = step(m, press("pgup"))
	m, _ = step(m, press("end"))
	if !m.transcript.Following() {
		t.Fatal("end should follow")
	}
}

func TestResizeRelaysOut(t *testing.T) {
	m := loaded(t, storedExchanges(5), 80, 24)
	for _, size := range [][2]int{{40, 12}, {120, 40}, {60, 30}} {
		m, _ = step(m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		lines := strings.Split(m.View().Content, "\n")
		if len(lines) != size[1] {
			t.Fatalf("%v: %d lines", size, len(lines))
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w > size[0] {
				t.Fatalf("%v: line %d is %d wide: %q", size, i, w, ansi.Strip(l))
			}
		}
		if !strings.Contains(plain(m), "Answer 5") {
			t.Fatalf("%v: newest reply not shown", size)
		}
	}
}

func TestCopySelectedReply(t *testing.T) {
	m := loaded(t, storedExchanges(2), 80, 24)
	m, _ = step(m, press("esc"))
	m, _ = step(m, press("k"))
	m, cmd := step(m, press("y"))
	msgs := execCmd(cmd, time.Second)
	if len(msgs) != 1 || fmt.Sprint(msgs[0]) != "Answer **1**, in a paragraph." {
		t.Fatalf("y produced %v, want the selected reply's text for the clipboard", msgs)
	}
	if !strings.Contains(plain(m), "copied") {
		t.Fatal("no notice after copying")
	}
}

func TestLightBackground(t *testing.T) {
	m := loaded(t, storedExchanges(1), 80, 24)
	dark := m.View().Content
	m, _ = step(m, tea.BackgroundColorMsg{Color: ansiWhite{}})
	if m.dark {
		t.Fatal("a white background should select the light styles")
	}
	if m.View().Content == dark {
		t.Fatal("the screen did not change for a light background")
	}
	if ansi.Strip(m.View().Content) != ansi.Strip(dark) {
		t.Fatal("the text should not depend on the background")
	}
}

// ansiWhite is a white terminal background.
type ansiWhite struct{}

func (ansiWhite) RGBA() (r, g, b, a uint32) { return 0xffff, 0xffff, 0xffff, 0xffff }

// fakeClock is a clock that moves only when told.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time                       { return c.now }
func (c *fakeClock) After(time.Duration) <-chan time.Time { return make(chan time.Time) }

func TestTier1CountdownFollowsTheClock(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)}
	m := streaming(t, nil, 100, 24)
	m.clock = clock
	over := chat.Classification{Retryable: true, Class: chat.Overloaded, Label: "Provider overloaded"}
	m, _ = deliver(m, chat.Event{Kind: chat.EventRetrying, Attempt: 2, MaxAttempts: 3, Wait: 5 * time.Second, Class: over})
	if !strings.Contains(plain(m), "attempt 2/3 in 5s") {
		t.Fatalf("no countdown:\n%s", plain(m))
	}
	clock.now = clock.now.Add(3 * time.Second)
	m, _ = step(m, spinner.TickMsg{ID: m.spinner.ID()})
	if !strings.Contains(plain(m), "attempt 2/3 in 2s") {
		t.Fatalf("countdown did not move:\n%s", plain(m))
	}
	m, _ = deliver(m, chat.Event{Kind: chat.EventStarted, Attempt: 2, MaxAttempts: 3})
	if s := plain(m); !strings.Contains(s, "reconnecting, attempt 2/3") || strings.Contains(s, " in ") {
		t.Fatalf("attempt 2 started, the wait should be gone:\n%s", s)
	}
}
