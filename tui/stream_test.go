package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	"github.com/charmbracelet/x/ansi"

	"parley/internal/chat"
	"parley/internal/chat/chattest"
)

// A run's events reaching the screen: the reader's batches, frames, Tier 1 status and every
// ending.

func TestStreamingRendersPerFrame(t *testing.T) {
	t.Parallel()
	m, clock := clockedStream(t, storedExchanges(2), 80, 24)
	m, _ = deliver(m, firstAttempt)
	if !strings.Contains(plain(m), "waiting for the reply") {
		t.Fatalf("no waiting status:\n%s", plain(m))
	}
	// The first text shows at once; text within the same frame interval waits for the frame.
	m, _ = deliver(m, delta("Hi. "))
	if !strings.Contains(plain(m), "Hi.") || m.framePending {
		t.Fatalf("the first delta should show at once:\n%s", plain(m))
	}
	clock.Advance(frameInterval / 3)
	m, cmd := deliver(m, delta("Hello "), delta("**world**"))
	if cmd == nil || !m.framePending {
		t.Fatal("a delta within a frame interval should schedule a frame")
	}
	if strings.Contains(plain(m), "Hello") {
		t.Fatal("deltas should wait for the frame before rendering")
	}
	clock.Advance(frameInterval)
	m, _ = step(m, frameMsg{tag: m.active.tag})
	if !strings.Contains(plain(m), "Hi. Hello world") {
		t.Fatalf("frame did not render the reply:\n%s", plain(m))
	}
	// A frame interval after the last render, a batch of deltas renders as it comes.
	clock.Advance(frameInterval)
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
	t.Parallel()
	m := streamingModel(t, nil, 80, 24)
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
	t.Parallel()
	m := streamingModel(t, nil, 100, 24)
	withMessage := chat.Classification{Retryable: true, Class: chat.Overloaded, Label: "Provider overloaded",
		Message: "The service may be temporarily overloaded, please try again later"}
	m, _ = deliver(m, firstAttempt,
		chat.Event{Kind: chat.EventRetrying, Attempt: 2, MaxAttempts: 3, Wait: 1200 * time.Millisecond, Class: withMessage})
	if s := plain(m); !strings.Contains(s, "Provider overloaded — reconnecting, attempt 2/3 in 2s") || !strings.Contains(s, "reconnecting") {
		t.Fatalf("no Tier 1 status:\n%s", s)
	}
	m, _ = deliver(m, chat.Event{Kind: chat.EventStarted, Attempt: 2, MaxAttempts: 3},
		chat.Event{Kind: chat.EventFailed, Class: withMessage})
	s := plain(m)
	if !strings.Contains(s, "✗ Provider overloaded — The service may be temporarily overloaded") {
		t.Fatalf("failure not shown with label and message:\n%s", s)
	}
	if strings.Contains(s, "reconnecting") || m.active != nil {
		t.Fatal("status not cleared after the run ended")
	}
}

func TestStaleRunEventsAreIgnored(t *testing.T) {
	t.Parallel()
	m := streamingModel(t, nil, 80, 24)
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
	t.Parallel()
	ch := make(chan chat.Event, 2000)
	var want strings.Builder
	for i := range 1200 {
		ch <- delta(fmt.Sprint(i, " "))
		want.WriteString(fmt.Sprint(i, " "))
	}
	ch <- chat.Event{Kind: chat.EventFinished}
	ch <- delta("after the end")
	// Everything up to the terminal event is ready: the messages carry it in order, each with
	// the deltas it gathered joined into one (on an idle machine one message carries it all;
	// the batch window is real time, and a loaded one may cut it), and the last one the end.
	var got strings.Builder
	for n := 0; ; n++ {
		msg := readEvents(3, ch)().(runEventsMsg)
		if msg.tag != 3 || msg.closed || n > 100 {
			t.Fatalf("message %d: tag %d, closed %v", n, msg.tag, msg.closed)
		}
		for i, ev := range msg.events {
			if ev.Kind == chat.EventDelta && i > 0 && msg.events[i-1].Kind == chat.EventDelta {
				t.Fatal("a message holds deltas not joined into one")
			}
			got.WriteString(ev.Text)
		}
		if last := msg.events[len(msg.events)-1]; last.Terminal() {
			break
		}
	}
	if got.String() != want.String() {
		t.Fatal("deltas lost or reordered before the end")
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
	t.Parallel()
	// Both deltas are queued before the first read: a sender still on its way to "b" when a
	// loaded machine's window closes would split them. The channel stays open and silent.
	ch := make(chan chat.Event, 3)
	for _, ev := range []chat.Event{{Kind: chat.EventStarted, Attempt: 1}, delta("a"), delta("b")} {
		ch <- ev
	}
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

func TestTier1CountdownFollowsTheClock(t *testing.T) {
	t.Parallel()
	m, clock := clockedStream(t, nil, 100, 24)
	m, _ = deliver(m, chat.Event{Kind: chat.EventRetrying, Attempt: 2, MaxAttempts: 3, Wait: 5 * time.Second, Class: overloaded})
	if !strings.Contains(plain(m), "attempt 2/3 in 5s") {
		t.Fatalf("no countdown:\n%s", plain(m))
	}
	clock.Advance(3 * time.Second)
	m, _ = step(m, spinner.TickMsg{ID: m.spinner.ID()})
	if !strings.Contains(plain(m), "attempt 2/3 in 2s") {
		t.Fatalf("countdown did not move:\n%s", plain(m))
	}
	m, _ = deliver(m, chat.Event{Kind: chat.EventStarted, Attempt: 2, MaxAttempts: 3})
	if s := plain(m); !strings.Contains(s, "reconnecting, attempt 2/3") || strings.Contains(s, " in ") {
		t.Fatalf("attempt 2 started, the wait should be gone:\n%s", s)
	}
}

// The chat screen shows every ending as chat.Decide decides it, as the recorder stores it and
// print mode reports it (their tests hold them to the same table).
func TestScreenShowsEveryEndingAsDecided(t *testing.T) {
	t.Parallel()
	chattest.CheckEndings(t, func(t *testing.T, e chattest.Ending) chat.Outcome {
		m := streamingModel(t, storedExchanges(1), 80, 24)
		reply := m.active.rcpt.ReplyID
		m, _ = step(m, runEventsMsg{tag: m.active.tag, events: e.Events, ch: make(chan chat.Event), closed: true})
		if m.active != nil {
			t.Fatal("the run is still active after its events ended")
		}
		shown, _ := m.transcript.Message(reply)
		return chat.Outcome{Status: shown.Status, Retry: shown.Retry}
	})
}
