package agent

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"parley/agent/chat"
	"parley/agent/chat/chattest"
	"parley/agent/demo"
	"parley/agent/demo/demotest"
	"parley/history"
	"parley/retry"
)

func openStore(t *testing.T) *history.DB {
	t.Helper()
	db, err := history.Open(filepath.Join(t.TempDir(), "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
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

// A provider's "come back at 14:50" holds back every client on the same endpoint and model
// until then, without a request; another model, or force, sends.
func TestEndpointMemoryHoldsBackWithoutSending(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	store := openStore(t)
	clock := newFakeClock()
	ep := Endpoint{BaseURL: srv.URL(), Model: "m", KeyEnv: "OPENAI_API_KEY"}
	srv.Push(demo.RateLimited(50 * time.Minute))
	first := lastEvent(t, NewClient(ep, clock, retry.DefaultPolicy()).WithStore(store).Stream(context.Background(), hello))
	if first.Kind != chat.EventFailed || first.Class.RetryAfterUntil.IsZero() || srv.Requests() != 1 {
		t.Fatalf("first run: %+v, %d requests", first, srv.Requests())
	}

	again := lastEvent(t, NewClient(ep, clock, retry.DefaultPolicy()).WithStore(openStore2(t, store)).Stream(context.Background(), hello))
	if srv.Requests() != 1 {
		t.Fatalf("a held endpoint was sent %d requests", srv.Requests()-1)
	}
	if again.Kind != chat.EventFailed || !again.Class.RetryAfterUntil.Equal(first.Class.RetryAfterUntil) ||
		again.Class.Class != chat.RateLimited || !again.Class.Retryable || again.SaidAt.IsZero() {
		t.Errorf("held run ended %+v", again)
	}

	other := ep
	other.Model = "m-mini"
	if ev := lastEvent(t, NewClient(other, clock, retry.DefaultPolicy()).WithStore(store).Stream(context.Background(), hello)); ev.Kind != chat.EventFinished || srv.Requests() != 2 {
		t.Errorf("another model: %+v, %d requests", ev, srv.Requests())
	}
	forced := NewClient(ep, clock, retry.DefaultPolicy()).WithStore(store).WithForce()
	if ev := lastEvent(t, forced.Stream(context.Background(), hello)); ev.Kind != chat.EventFinished || srv.Requests() != 3 {
		t.Errorf("forced: %+v, %d requests", ev, srv.Requests())
	}
	// The forced success cleared the memory: a plain client sends again.
	lastEvent(t, NewClient(ep, clock, retry.DefaultPolicy()).WithStore(store).Stream(context.Background(), hello))
	if srv.Requests() != 4 {
		t.Errorf("after a success the endpoint is still held: %d requests", srv.Requests())
	}
}

func openStore2(t *testing.T, db *history.DB) *history.DB {
	t.Helper()
	db2, err := history.Open(db.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db2.Close() })
	return db2
}

// Twenty requests into an outage make twenty first attempts and the budget's twelve retries,
// not sixty: the rest fail as they were, for Tier 2, without a retry.
func TestRetryBudgetBoundsAnOutage(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	for range 60 {
		srv.Push(demo.Overloaded())
	}
	store := openStore(t)
	clock := chattest.New(time.Now()) // time stands still: every retry falls in one window
	policy := retry.DefaultPolicy()
	policy.Base = 0
	ep := Endpoint{BaseURL: srv.URL(), Model: "m"}
	held := 0
	for range 20 {
		c := NewClient(ep, clock, policy).WithStore(openStore2(t, store))
		for ev := range c.Stream(context.Background(), hello) {
			if ev.Kind == chat.EventFailed && ev.Class.Class != chat.Overloaded {
				t.Fatalf("failed as %s", ev.Class.Class)
			}
			if ev.Kind == chat.EventRetrying && ev.BudgetSpent {
				held++
			}
		}
	}
	if got := srv.Requests(); got != 32 {
		t.Errorf("%d requests; want 20 first attempts + 12 retries", got)
	}
	if held != 0 {
		t.Errorf("%d waits for a budget that frees only after Tier 1's longest wait", held)
	}
}
