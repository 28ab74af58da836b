package agent

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"parley/agent/chat"
	"parley/agent/chat/chattest"
	"parley/agent/demo"
	"parley/agent/demo/demotest"
	"parley/retry"
)

// newFakeClock returns a clock on which every wait passes at once, recorded.
func newFakeClock() *chattest.Clock {
	return chattest.NewInstant(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
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

func text(events []chat.Event) string {
	var b strings.Builder
	for _, ev := range events {
		if ev.Kind == chat.EventDelta {
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

func TestStreamsAReplyWithUsage(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	c := NewClient(Endpoint{BaseURL: srv.URL(), Model: "parley-demo"}, newFakeClock(), retry.DefaultPolicy())
	events := collect(t, c, context.Background())
	last := events[len(events)-1]
	if last.Kind != chat.EventFinished || last.FinishReason != "stop" {
		t.Fatalf("last event %+v, want finished with stop", last)
	}
	if text(events) == "" || count(events, chat.EventUsage) != 1 || count(events, chat.EventStarted) != 1 {
		t.Fatalf("want text, one usage and one attempt; got %+v", events)
	}
	if srv.Requests() != 1 {
		t.Fatalf("%d requests, want 1", srv.Requests())
	}
}

func TestTier1RecoversFromTwoOverloads(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	srv.Push(demo.Overloaded(), demo.Overloaded())
	clock := newFakeClock()
	c := NewClient(Endpoint{BaseURL: srv.URL(), Model: "m"}, clock, retry.DefaultPolicy())
	events := collect(t, c, context.Background())
	if events[len(events)-1].Kind != chat.EventFinished || srv.Requests() != 3 {
		t.Fatalf("want success after 3 requests, got %d requests, last %+v", srv.Requests(), events[len(events)-1])
	}
	if n := count(events, chat.EventRetrying); n != 2 {
		t.Fatalf("%d retry notices, want 2", n)
	}
	for i, w := range clock.Waits() {
		if w < 0 || w > time.Duration(1<<i)*time.Second {
			t.Errorf("wait %d = %v, outside full jitter [0, %v]", i+1, w, time.Duration(1<<i)*time.Second)
		}
	}
}

func TestTier1StopsAfterThreeAttempts(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	srv.Push(demo.Overloaded(), demo.Overloaded(), demo.Overloaded(), demo.Overloaded())
	c := NewClient(Endpoint{BaseURL: srv.URL(), Model: "m"}, newFakeClock(), retry.DefaultPolicy())
	last := collect(t, c, context.Background())
	ev := last[len(last)-1]
	if ev.Kind != chat.EventFailed || ev.Class.Class != chat.Overloaded || !ev.Class.Retryable {
		t.Fatalf("last event %+v, want failed overloaded retryable", ev)
	}
	if srv.Requests() != 3 {
		t.Fatalf("%d requests, want exactly 3", srv.Requests())
	}
}

func TestTier1HandsLongWaitsToTier2(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	srv.Push(demo.RateLimited(50 * time.Minute))
	clock := newFakeClock()
	c := NewClient(Endpoint{BaseURL: srv.URL(), Model: "m"}, clock, retry.DefaultPolicy())
	events := collect(t, c, context.Background())
	ev := events[len(events)-1]
	if ev.Kind != chat.EventFailed || ev.Class.Class != chat.RateLimited || srv.Requests() != 1 || len(clock.Waits()) != 0 {
		t.Fatalf("want one request, no wait, failed rate_limited; got %d requests, waits %v, %+v", srv.Requests(), clock.Waits(), ev)
	}
	if got := ev.Class.RetryAfterUntil.Sub(clock.Now()); got < 50*time.Minute-time.Second || got > 50*time.Minute+time.Second {
		t.Fatalf("retry_after_until is now+%v, want now+50m", got)
	}
}

func TestNoRetryAfterTheFirstDelta(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	srv.Push(demo.Fault{CutAfter: 4})
	c := NewClient(Endpoint{BaseURL: srv.URL(), Model: "m"}, newFakeClock(), retry.DefaultPolicy())
	events := collect(t, c, context.Background())
	ev := events[len(events)-1]
	if ev.Kind != chat.EventFailed || ev.Class.Class != chat.Network || srv.Requests() != 1 {
		t.Fatalf("want one request failed as network; got %d requests, %+v", srv.Requests(), ev)
	}
	if n := count(events, chat.EventDelta); n != 4 {
		t.Fatalf("%d deltas kept, want the 4 sent", n)
	}
}

func TestErrorFrameBeforeFirstDeltaIsRetried(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	srv.Push(demo.ErrorEvent())
	c := NewClient(Endpoint{BaseURL: srv.URL(), Model: "m"}, newFakeClock(), retry.DefaultPolicy())
	events := collect(t, c, context.Background())
	if events[len(events)-1].Kind != chat.EventFinished || srv.Requests() != 2 {
		t.Fatalf("want success on the second request; got %d requests, %+v", srv.Requests(), events[len(events)-1])
	}
}

func TestNotRetryable(t *testing.T) {
	for name, f := range map[string]demo.Fault{"quota": demo.Quota(), "badkey": demo.BadKey()} {
		t.Run(name, func(t *testing.T) {
			srv := demotest.Start(t, demo.Options{})
			srv.Push(f, f)
			c := NewClient(Endpoint{BaseURL: srv.URL(), Model: "m"}, newFakeClock(), retry.DefaultPolicy())
			events := collect(t, c, context.Background())
			ev := events[len(events)-1]
			if ev.Kind != chat.EventFailed || ev.Class.Retryable || srv.Requests() != 1 {
				t.Fatalf("want one request, failed, not retryable; got %d requests, %+v", srv.Requests(), ev)
			}
		})
	}
}

func TestUnresolvedKeySendsNothing(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	c := NewClient(Endpoint{BaseURL: srv.URL(), Model: "m", KeyErr: "GROQ_API_KEY is not set"}, newFakeClock(), retry.DefaultPolicy())
	events := collect(t, c, context.Background())
	ev := events[len(events)-1]
	if ev.Kind != chat.EventFailed || ev.Class.Class != chat.CredentialsUnresolved || srv.Requests() != 0 {
		t.Fatalf("want credentials_unresolved and no request; got %d requests, %+v", srv.Requests(), ev)
	}
}

func TestCancelAbortsATier1Wait(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	srv.Push(demo.Overloaded(), demo.Overloaded())
	clock := stuckClock{waiting: make(chan struct{})}
	c := NewClient(Endpoint{BaseURL: srv.URL(), Model: "m"}, clock, retry.DefaultPolicy())
	ctx, cancel := context.WithCancel(context.Background())
	events := c.Stream(ctx, []chat.Message{{Role: "user", Content: "hi"}})
	<-clock.waiting
	cancel()
	var last chat.Event
	for ev := range events {
		last = ev
	}
	if last.Kind != chat.EventCancelled || srv.Requests() != 1 {
		t.Fatalf("want cancelled after one request; got %d requests, %+v", srv.Requests(), last)
	}
}

func TestCommentsDoNotExtendTheFirstDeltaDeadline(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(`data: {"choices":[{"delta":{"role":"assistant","content":""}}]}` + "\n\n"))
		for {
			w.Write([]byte(": keep-alive\n\n"))
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}))
	defer srv.Close()
	c := NewClient(Endpoint{BaseURL: srv.URL + "/v1", Model: "m", FirstDeltaTimeout: 200 * time.Millisecond}, newFakeClock(), oneAttempt())
	start := time.Now()
	events := collect(t, c, context.Background())
	ev := events[len(events)-1]
	if ev.Kind != chat.EventFailed || ev.Class.Class != chat.Timeout {
		t.Fatalf("want a timeout failure, got %+v", ev)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("took %v: keep-alive comments extended the deadline", took)
	}
}
