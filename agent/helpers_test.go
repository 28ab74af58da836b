package agent

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"parley/internal/chat"
	"parley/internal/chat/chattest"
	"parley/retry"
)

// This file holds what the agent's tests share: clocks, a client on them, and reading the
// events of a run.

func TestMain(m *testing.M) {
	// The corpus replays wait on local servers and on timeouts (a stalled entry's second or
	// two), not on the CPU.
	chattest.WaitingParallel(8)
	os.Exit(m.Run())
}

// instantClock is a clock whose waits pass at once, recorded.
func instantClock() *chattest.Clock { return chattest.NewInstant(chattest.Start) }

// testClient is a client of ep with the default retry policy on an instant clock.
func testClient(ep Endpoint) *Client {
	return NewClient(ep, instantClock(), retry.DefaultPolicy())
}

// stuckClock's waits never end: only cancellation can stop them.
type stuckClock struct{ waiting chan struct{} }

func (stuckClock) Now() time.Time { return time.Now() }

func (c stuckClock) After(time.Duration) <-chan time.Time {
	close(c.waiting)
	return nil
}

// collect runs one request and returns its events.
func collect(t *testing.T, c *Client, ctx context.Context) []chat.Event {
	t.Helper()
	var events []chat.Event
	for ev := range c.Stream(ctx, []chat.Message{{Role: "user", Content: "hello"}}) {
		events = append(events, ev)
	}
	if len(events) == 0 || !events[len(events)-1].Terminal() {
		t.Fatalf("run did not end with a terminal event: %+v", events)
	}
	return events
}

// text is the answer of events.
func text(events []chat.Event) string { return joined(events, chat.EventDelta) }

// thought is the thinking of events.
func thought(events []chat.Event) string { return joined(events, chat.EventReasoning) }

// joined is the text of the events of kind, in order.
func joined(events []chat.Event, kind chat.EventKind) string {
	var b strings.Builder
	for _, ev := range events {
		if ev.Kind == kind {
			b.WriteString(ev.Text)
		}
	}
	return b.String()
}

func count(events []chat.Event, kind chat.EventKind) int {
	n := 0
	for _, ev := range events {
		if ev.Kind == kind {
			n++
		}
	}
	return n
}

func lastEvent(t *testing.T, events <-chan chat.Event) chat.Event {
	t.Helper()
	var last chat.Event
	for ev := range events {
		last = ev
	}
	return last
}

var hello = []chat.Message{{Role: "user", Content: "hello"}}
