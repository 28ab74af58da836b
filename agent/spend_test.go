package agent

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"parley/internal/chat"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
	"parley/retry"
)

// fakeLedger is a Ledger of fixed usage that records the times asked about.
type fakeLedger struct {
	session, day map[string]chat.Usage
	since        []time.Time
	err          error
}

func (l *fakeLedger) SessionUsage(string) (map[string]chat.Usage, error) { return l.session, l.err }
func (l *fakeLedger) UsageSince(t time.Time) (map[string]chat.Usage, error) {
	l.since = append(l.since, t)
	return l.day, l.err
}

func TestBudgetCheck(t *testing.T) {
	t.Parallel()
	msgs := []chat.Message{{Role: "user", Content: strings.Repeat("x", 400)}} // 107 tokens
	prices := Prices{"paid": {Input: 1000, Output: 1000}}                     // $0.001 a token
	clock := instantClock()
	cases := []struct {
		name    string
		limits  Limits
		session map[string]chat.Usage
		day     map[string]chat.Usage
		model   string
		refused string // a word of the message, or "" when the request may go
	}{
		{"no limits", Limits{}, nil, nil, "paid", ""},
		{"session tokens: room", Limits{SessionTokens: 1000}, map[string]chat.Usage{"paid": {PromptTokens: 800, CompletionTokens: 93}}, nil, "paid", ""},
		{"session tokens: the estimate crosses", Limits{SessionTokens: 1000}, map[string]chat.Usage{"paid": {PromptTokens: 800, CompletionTokens: 94}}, nil, "paid", "this session"},
		{"session cost: the estimate crosses", Limits{SessionCost: 0.2}, map[string]chat.Usage{"paid": {PromptTokens: 50, CompletionTokens: 50}}, nil, "paid", "$0.107"},
		{"session cost: unpriced model costs nothing", Limits{SessionCost: 0.2}, map[string]chat.Usage{"free": {PromptTokens: 5000, CompletionTokens: 5000}}, nil, "free", ""},
		{"day tokens: already past", Limits{DayTokens: 500}, nil, map[string]chat.Usage{"free": {PromptTokens: 400, CompletionTokens: 200}}, "free", "today"},
		{"day cost: room", Limits{DayCost: 1}, nil, map[string]chat.Usage{"paid": {PromptTokens: 400, CompletionTokens: 400}}, "paid", ""},
		{"day cost: crossed", Limits{DayCost: 1}, nil, map[string]chat.Usage{"paid": {PromptTokens: 500, CompletionTokens: 400}}, "paid", "max_spend_day"},
		{"day cost: past, but a free model spends nothing", Limits{DayCost: 1}, nil, map[string]chat.Usage{"paid": {PromptTokens: 5000}}, "free", ""},
	}
	y, m, d := clock.Now().Date()
	midnight := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	for _, c := range cases {
		l := &fakeLedger{session: c.session, day: c.day}
		b := &SpendGuard{Prices: prices, Limits: c.limits, Ledger: l, Clock: clock}
		cls := b.Check("s", c.model, msgs)
		if (cls == nil) != (c.refused == "") {
			t.Errorf("%s: %+v", c.name, cls)
			continue
		}
		if cls == nil {
			continue
		}
		if cls.Class != chat.SpendLimitExceeded || cls.Retryable || !strings.Contains(cls.Message, c.refused) || !strings.Contains(cls.Message, "no request was sent") {
			t.Errorf("%s: %+v, want spend_limit_exceeded, not retryable, naming %q", c.name, cls, c.refused)
		}
		day := c.limits.DayCost > 0 || c.limits.DayTokens > 0
		if day && !cls.RetryAfterUntil.Equal(midnight.AddDate(0, 0, 1)) {
			t.Errorf("%s: the daily limit resets at %v, want the next midnight", c.name, cls.RetryAfterUntil)
		}
		if day && (len(l.since) != 1 || !l.since[0].Equal(midnight)) {
			t.Errorf("%s: asked for usage since %v, want since midnight", c.name, l.since)
		}
	}
	broken := &SpendGuard{Limits: Limits{DayTokens: 10}, Ledger: &fakeLedger{err: errors.New("disk on fire")}, Clock: clock}
	if cls := broken.Check("s", "m", msgs); cls == nil || !strings.Contains(cls.Message, "disk on fire") {
		t.Errorf("a ledger that cannot be read let the request through: %+v", cls)
	}
}

func TestBudgetStreamSendsNothingOverTheLimit(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{})
	c := testClient(Endpoint{BaseURL: srv.URL(), Model: "m"})
	// 40 tokens spent and about 10 for the prompt pass a limit of 49.
	b := &SpendGuard{Limits: Limits{SessionTokens: 49}, Ledger: &fakeLedger{session: map[string]chat.Usage{"m": {PromptTokens: 30, CompletionTokens: 10}}}, Clock: instantClock()}
	var events []chat.Event
	for ev := range b.Stream(context.Background(), c, "s", []chat.Message{{Role: "user", Content: "hello there"}}) {
		events = append(events, ev)
	}
	if len(events) != 1 || events[0].Kind != chat.EventFailed || events[0].Class.Class != chat.SpendLimitExceeded || srv.Requests() != 0 {
		t.Fatalf("events %v after %d requests, want one spend_limit_exceeded failure and no request", kinds(events), srv.Requests())
	}
	// Under the limit the same budget lets the request go.
	b.Limits.SessionTokens = 1000
	for ev := range b.Stream(context.Background(), c, "s", []chat.Message{{Role: "user", Content: "hello there"}}) {
		events = append(events, ev)
	}
	if last := events[len(events)-1]; last.Kind != chat.EventFinished || srv.Requests() != 1 {
		t.Fatalf("ended %+v after %d requests", last, srv.Requests())
	}
	// A nil budget checks nothing.
	var none *SpendGuard
	for range none.Stream(context.Background(), c, "s", []chat.Message{{Role: "user", Content: "hi"}}) {
	}
	if srv.Requests() != 2 {
		t.Fatalf("%d requests after a run without a budget", srv.Requests())
	}
}

// Provider spend and quota errors end the run at once: one request, not retryable.
func TestProviderSpendErrorsAreNotRetried(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		fault  demo.Fault
		class  chat.Class
		regain time.Time
	}{
		{"anthropic usage limits", demo.Fault{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"You have reached your specified API usage limits. You will regain access on 2026-12-01 at 00:00 UTC."}}`},
			chat.SpendLimitExceeded, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
		{"openrouter 402 can only afford", demo.Fault{Status: 402, Body: `{"error":{"message":"This request requires more credits, or fewer max_tokens. You requested up to 32000 tokens, but can only afford 27342.","code":402}}`},
			chat.SpendLimitExceeded, time.Time{}},
		{"openrouter 402 insufficient credits", demo.Fault{Status: 402, Body: `{"error": {"message": "Insufficient credits. Add more using https://openrouter.ai/settings/credits", "code": 402}}`},
			chat.QuotaExhausted, time.Time{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := demotest.Start(t, demo.Options{}, c.fault, c.fault, c.fault)
			clock := instantClock()
			cl := NewClient(Endpoint{BaseURL: srv.URL(), Model: "m"}, clock, retry.DefaultPolicy())
			events := collect(t, cl, context.Background())
			last := events[len(events)-1]
			if last.Kind != chat.EventFailed || last.Class.Class != c.class || last.Class.Retryable || srv.Requests() != 1 || len(clock.Waits()) != 0 {
				t.Fatalf("ended %+v after %d requests and waits %v, want %s, not retryable, after 1", last, srv.Requests(), clock.Waits(), c.class)
			}
			if !last.Class.RetryAfterUntil.Equal(c.regain) {
				t.Fatalf("retry_after_until %v, want %v", last.Class.RetryAfterUntil, c.regain)
			}
		})
	}
}
