package agent

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"parley/history/historytest"
	"parley/internal/chat"
	"parley/internal/chat/chattest"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
	"parley/retry"
	"parley/retry/retrytest"
)

func TestStreamsAReplyWithUsage(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{})
	c := testClient(Endpoint{BaseURL: srv.URL(), Model: "parley-demo"})
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
	t.Parallel()
	srv := demotest.Start(t, demo.Options{}, demo.Overloaded(), demo.Overloaded())
	clock := instantClock()
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
	t.Parallel()
	srv := demotest.Start(t, demo.Options{}, demo.Overloaded(), demo.Overloaded(), demo.Overloaded(), demo.Overloaded())
	c := testClient(Endpoint{BaseURL: srv.URL(), Model: "m"})
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
	t.Parallel()
	srv := demotest.Start(t, demo.Options{}, demo.RateLimited(50*time.Minute))
	clock := instantClock()
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
	t.Parallel()
	srv := demotest.Start(t, demo.Options{}, demo.Fault{CutAfter: 4})
	c := testClient(Endpoint{BaseURL: srv.URL(), Model: "m"})
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
	t.Parallel()
	srv := demotest.Start(t, demo.Options{}, demo.ErrorEvent())
	c := testClient(Endpoint{BaseURL: srv.URL(), Model: "m"})
	events := collect(t, c, context.Background())
	if events[len(events)-1].Kind != chat.EventFinished || srv.Requests() != 2 {
		t.Fatalf("want success on the second request; got %d requests, %+v", srv.Requests(), events[len(events)-1])
	}
}

func TestNotRetryable(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]demo.Fault{"quota": demo.Quota(), "badkey": demo.BadKey()} {
		t.Run(name, func(t *testing.T) {
			srv := demotest.Start(t, demo.Options{}, f, f)
			c := testClient(Endpoint{BaseURL: srv.URL(), Model: "m"})
			events := collect(t, c, context.Background())
			ev := events[len(events)-1]
			if ev.Kind != chat.EventFailed || ev.Class.Retryable || srv.Requests() != 1 {
				t.Fatalf("want one request, failed, not retryable; got %d requests, %+v", srv.Requests(), ev)
			}
		})
	}
}

func TestUnresolvedKeySendsNothing(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{})
	c := testClient(Endpoint{BaseURL: srv.URL(), Model: "m", KeyErr: "GROQ_API_KEY is not set"})
	events := collect(t, c, context.Background())
	ev := events[len(events)-1]
	if ev.Kind != chat.EventFailed || ev.Class.Class != chat.CredentialsUnresolved || srv.Requests() != 0 {
		t.Fatalf("want credentials_unresolved and no request; got %d requests, %+v", srv.Requests(), ev)
	}
}

func TestCancelAbortsATier1Wait(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{}, demo.Overloaded(), demo.Overloaded())
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

// A client logs its attempts to the logger it was given, and only there.
func TestWithLoggerLogsAttempts(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{}, demo.Overloaded())
	var logged strings.Builder
	c := NewClient(Endpoint{BaseURL: srv.URL(), Model: "m"}, instantClock(), oneAttempt()).
		WithLogger(slog.New(slog.NewTextHandler(&logged, nil)))
	if last := collect(t, c, context.Background()); last[len(last)-1].Class.Class != chat.Overloaded {
		t.Fatalf("ended %+v", last[len(last)-1])
	}
	if s := logged.String(); !strings.Contains(s, "attempt failed") || !strings.Contains(s, "class=overloaded") {
		t.Errorf("logged %q, want the failed attempt", s)
	}
}

// Keep-alive comments for three seconds, then an answer: against a 200 ms first-delta
// deadline the run times out, where comments that extended the deadline would let the answer
// through.
func TestCommentsDoNotExtendTheFirstDeltaDeadline(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(`data: {"choices":[{"delta":{"role":"assistant","content":""}}]}` + "\n\n"))
		for range 150 {
			w.Write([]byte(": keep-alive\n\n"))
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
		w.Write([]byte(`data: {"choices":[{"delta":{"content":"too late"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"))
	}))
	defer srv.Close()
	c := NewClient(Endpoint{BaseURL: srv.URL + "/v1", Model: "m", FirstDeltaTimeout: 200 * time.Millisecond}, instantClock(), oneAttempt())
	events := collect(t, c, context.Background())
	ev := events[len(events)-1]
	if ev.Kind != chat.EventFailed || ev.Class.Class != chat.Timeout {
		t.Fatalf("want a timeout failure: keep-alive comments extended the deadline; got %+v", ev)
	}
}

// A provider's "come back at 14:50" holds back every client on the same endpoint and model
// until then, without a request; another model, or force, sends.
func TestEndpointMemoryHoldsBackWithoutSending(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{})
	store := historytest.Open(t)
	clock := instantClock()
	ep := Endpoint{BaseURL: srv.URL(), Model: "m", KeyEnv: "OPENAI_API_KEY"}
	srv.Push(demo.RateLimited(50 * time.Minute))
	first := lastEvent(t, NewClient(ep, clock, retry.DefaultPolicy()).WithStore(store).Stream(context.Background(), hello))
	if first.Kind != chat.EventFailed || first.Class.RetryAfterUntil.IsZero() || srv.Requests() != 1 {
		t.Fatalf("first run: %+v, %d requests", first, srv.Requests())
	}

	again := lastEvent(t, NewClient(ep, clock, retry.DefaultPolicy()).WithStore(historytest.Reopen(t, store)).Stream(context.Background(), hello))
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

// Twenty requests into an outage make twenty first attempts and the budget's twelve retries,
// not sixty: the rest fail as they were, for Tier 2, without a retry.
func TestRetryBudgetBoundsAnOutage(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{}, demo.Times(60, demo.Overloaded())...)
	store := historytest.Open(t)
	clock := chattest.New(time.Now()) // time stands still: every retry falls in one window
	policy := retry.DefaultPolicy()
	policy.Base = 0
	ep := Endpoint{BaseURL: srv.URL(), Model: "m"}
	held := 0
	for range 20 {
		c := NewClient(ep, clock, policy).WithStore(historytest.Reopen(t, store))
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

// sseBody gives a corpus stream body SSE framing where the fixture stripped it (one JSON
// object per line).
func sseBody(body string) string {
	var b strings.Builder
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "{") || strings.HasPrefix(line, "[") {
			b.WriteString("data: " + line + "\n\n")
			continue
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// replay serves one corpus entry exactly as written: status, headers and body, or the stream
// body after a 200, or a connection failure.
func replay(e retrytest.CorpusEntry) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// Reading the request lets the server notice when the client goes away.
		io.Copy(io.Discard, r.Body)
		switch e.Phase {
		case "connect":
			if strings.Contains(e.Body, "awaiting headers") || strings.Contains(e.Body, "timeout") {
				<-r.Context().Done()
				return
			}
			hijackReset(w)
		case "in_stream":
			for k, v := range e.Headers {
				w.Header().Set(k, v)
			}
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.Write([]byte(sseBody(e.Body)))
			w.(http.Flusher).Flush()
			if !strings.Contains(e.Body, "data:") && !strings.Contains(e.Body, "{") {
				// Only keep-alive comments: the server holds the request open.
				<-r.Context().Done()
			}
		default:
			for k, v := range e.Headers {
				w.Header().Set(k, v)
			}
			w.WriteHeader(e.Status)
			w.Write([]byte(e.Body))
		}
	}
}

// replayServer serves entry e on 127.0.0.1 for the test's length and returns its URL. A
// certificate error is served over TLS with a certificate the client does not trust, a TLS
// handshake that times out by a listener that accepts and never answers.
func replayServer(t *testing.T, e retrytest.CorpusEntry) string {
	t.Helper()
	switch {
	case e.Phase == "connect" && strings.Contains(e.Body, "TLS handshake timeout"):
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			var held []net.Conn // never answered, closed when the test ends
			defer func() {
				for _, c := range held {
					c.Close()
				}
				close(done)
			}()
			for {
				conn, err := l.Accept()
				if err != nil {
					return
				}
				held = append(held, conn)
			}
		}()
		t.Cleanup(func() { l.Close(); <-done })
		return "https://" + l.Addr().String()
	case e.Phase == "connect" && strings.Contains(e.Body, "x509:"):
		srv := httptest.NewTLSServer(replay(e))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	srv := httptest.NewServer(replay(e))
	t.Cleanup(srv.Close)
	return srv.URL
}

// hijackReset closes the connection with a TCP reset before any response is sent.
func hijackReset(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// oneAttempt is a policy that never retries, so the first failure's classification is seen.
func oneAttempt() retry.Policy {
	p := retry.DefaultPolicy()
	p.MaxAttempts = 1
	return p
}

func TestCorpusReplayedOverHTTP(t *testing.T) {
	t.Parallel()
	replayCorpus(t, retrytest.Corpus(t), nil)
}

// TestProviderCorpusReplayedOverHTTP replays the repository's own corpus. Every entry, over
// HTTP and through the agent's own stream reader, must be classified as retry classifies its
// recorded form: the agent loses nothing of what was sent. Entries outside the held-out fifth
// must also have their expected class; the held-out ones are measured in package retry, and
// nothing of them is printed here, so that they tune nothing.
func TestProviderCorpusReplayedOverHTTP(t *testing.T) {
	t.Parallel()
	replayCorpus(t, retrytest.ProviderCorpus(t), retrytest.Holdout(t))
}

// The second round too: with 2xx bodies that hold errors in other shapes, the live client and
// the explaining tool (ParseRaw) must read every answer alike.
func TestSecondCorpusReplayedOverHTTP(t *testing.T) {
	t.Parallel()
	replayCorpus(t, retrytest.SecondCorpus(t), retrytest.SecondHoldout(t))
}

// The third round: permission blocks, gateways' words for an upstream that did not answer,
// tools a local server cannot take, overflow and refusals worded otherwise, read over HTTP as
// retry reads them recorded.
func TestThirdCorpusReplayedOverHTTP(t *testing.T) {
	t.Parallel()
	replayCorpus(t, retrytest.ThirdCorpus(t), nil)
}

// replayCorpus serves each entry from a local server and checks the run's classification.
// The clients log nothing (no WithLogger), so no held-out entry's message is shown.
func replayCorpus(t *testing.T, entries []retrytest.CorpusEntry, holdout map[string]bool) {
	for _, e := range entries {
		if e.Phase == "connect" && strings.Contains(e.Body, "lookup ") {
			continue // a resolver's failure cannot be made on 127.0.0.1: retry classifies it alone
		}
		t.Run(e.ID, func(t *testing.T) {
			t.Parallel()
			// Short enough that a stalled entry ends soon, long enough for a TLS handshake
			// of the race detector's on a loaded machine (over 500 ms has been seen).
			c := NewClient(Endpoint{
				BaseURL: replayServer(t, e) + "/v1", Model: "m", ConnectTimeout: time.Second,
				HeaderTimeout: time.Second, FirstDeltaTimeout: 2 * time.Second,
			}, chat.SystemClock{}, oneAttempt())
			var last chat.Event
			for ev := range c.Stream(context.Background(), []chat.Message{{Role: "user", Content: "hi"}}) {
				last = ev
			}
			if last.Kind != chat.EventFailed {
				t.Fatalf("%s: run ended with event %d, want failed", e.ID, last.Kind)
			}
			got := last.Class
			want := retry.Classify(recorded(t, e))
			if got.Class != want.Class || got.Retryable != want.Retryable {
				t.Errorf("%s: over HTTP %s retryable=%v, recorded %s retryable=%v", e.ID, got.Class, got.Retryable, want.Class, want.Retryable)
			}
			if holdout[e.ID] {
				return
			}
			if string(got.Class) != e.ExpectedClass || got.Retryable != e.Retryable {
				t.Errorf("%s (%s): got %s retryable=%v by %s (%q), want %s retryable=%v",
					e.ID, e.Scenario, got.Class, got.Retryable, got.Rule, got.Message, e.ExpectedClass, e.Retryable)
			}
		})
	}
}

// recorded is the failure an entry records, as retry.ParseRaw reads it.
func recorded(t *testing.T, e retrytest.CorpusEntry) retry.Failure {
	t.Helper()
	raw, ok := e.Raw()
	if !ok {
		return retry.Failure{Phase: retry.BeforeHeaders, Err: errors.New(e.Body), Now: time.Now()}
	}
	f, err := retry.ParseRaw([]byte(raw))
	if err != nil {
		t.Fatalf("%s: %v", e.ID, err)
	}
	f.Now = time.Now()
	return f
}

// A provider that says no requests are left until a reset holds back the next send, from this
// client or another parley's, until then, without a request; after the reset it goes.
func TestPacingHoldsASendTheProviderWouldRefuse(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{})
	store := historytest.Open(t)
	clock := chattest.New(chattest.Start)
	ep := Endpoint{Name: "openai", BaseURL: srv.URL(), Model: "m", KeyEnv: "OPENAI_API_KEY"}
	srv.Push(demo.Fault{Header: map[string]string{"x-ratelimit-limit-requests": "500", "x-ratelimit-remaining-requests": "0",
		"x-ratelimit-reset-requests": "5s", "x-ratelimit-remaining-tokens": "29000", "x-ratelimit-reset-tokens": "120ms"}})
	if ev := lastEvent(t, NewClient(ep, clock, retry.DefaultPolicy()).WithStore(store).Stream(context.Background(), hello)); ev.Kind != chat.EventFinished {
		t.Fatalf("first run: %+v", ev)
	}
	held := lastEvent(t, NewClient(ep, clock, retry.DefaultPolicy()).WithStore(historytest.Reopen(t, store)).Stream(context.Background(), hello))
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
	t.Parallel()
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
