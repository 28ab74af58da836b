package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"parley/history/historytest"
	"parley/internal/chat"
	"parley/internal/chat/chattest"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
	"parley/retry"
)

// A provider that says no requests are left until a reset holds back the next send, from this
// client or another parley's, until then, without a request; after the reset it goes.
func TestPacingHoldsASendTheProviderWouldRefuse(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	store := historytest.Open(t)
	clock := chattest.New(chattest.Start)
	ep := Endpoint{Name: "openai", BaseURL: srv.URL(), Model: "m", KeyEnv: "OPENAI_API_KEY"}
	srv.Push(demo.Fault{Header: map[string]string{"x-ratelimit-limit-requests": "500", "x-ratelimit-remaining-requests": "0",
		"x-ratelimit-reset-requests": "5s", "x-ratelimit-remaining-tokens": "29000", "x-ratelimit-reset-tokens": "120ms"}})
	if ev := lastEvent(t, NewClient(ep, clock, retry.DefaultPolicy()).WithStore(store).Stream(context.Background(), hello)); ev.Kind != chat.EventFinished {
		t.Fatalf("first run: %+v", ev)
	}
	held := lastEvent(t, NewClient(ep, clock, retry.DefaultPolicy()).WithStore(reopen(t, store)).Stream(context.Background(), hello))
	if srv.Requests() != 1 {
		t.Fatalf("a paced send went out: %d requests", srv.Requests())
	}
	c := held.Class
	if held.Kind != chat.EventFailed || c.Class != chat.RateLimited || !c.Retryable || c.Rule != "endpoint.pacing" ||
		!c.RetryAfterUntil.Equal(chattest.Start.Add(5*time.Second)) || !held.SaidAt.Equal(chattest.Start) {
		t.Fatalf("held run ended %+v", held)
	}
	if c.Label != "openai says 0 requests left" || !strings.Contains(c.Message, "until "+chat.FormatClockSeconds(chattest.Start.Add(5*time.Second), chattest.Start)) {
		t.Errorf("label %q message %q", c.Label, c.Message)
	}
	if r, ok := NewClient(ep, clock, retry.DefaultPolicy()).WithStore(store).RateLimits(); !ok || r.Requests != 0 || r.RequestLimit != 500 {
		t.Errorf("RateLimits = %+v, %v", r, ok)
	}
	clock.Advance(5 * time.Second)
	if ev := lastEvent(t, NewClient(ep, clock, retry.DefaultPolicy()).WithStore(store).Stream(context.Background(), hello)); ev.Kind != chat.EventFinished || srv.Requests() != 2 {
		t.Fatalf("after the reset: %+v, %d requests", ev, srv.Requests())
	}
}

// Without rate-limit headers nothing is remembered, and sends go as they always did.
func TestNoPacingWithoutHeaders(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	store := historytest.Open(t)
	clock := chattest.New(chattest.Start)
	c := NewClient(Endpoint{BaseURL: srv.URL(), Model: "m"}, clock, retry.DefaultPolicy()).WithStore(store)
	for i := range 3 {
		if ev := lastEvent(t, c.Stream(context.Background(), hello)); ev.Kind != chat.EventFinished {
			t.Fatalf("run %d: %+v", i, ev)
		}
	}
	if srv.Requests() != 3 {
		t.Errorf("%d requests, want 3", srv.Requests())
	}
	if _, ok := c.RateLimits(); ok {
		t.Error("limits remembered from an answer that gave none")
	}
}
