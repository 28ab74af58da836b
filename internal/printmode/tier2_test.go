package printmode

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"parley/agent"
	"parley/history/historytest"
	"parley/internal/chat"
	"parley/internal/chat/chattest"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
	"parley/retry"
	"parley/retry/retrytest"
)

// Print mode's --wait and --fallback hold to the table the retry machine and the chat screen
// are held to: for every case the retry is sent when it is due, the countdown says what the
// chat screen's banner says, and --fallback goes to the fallback only where it is offered.
func TestTier2CasesInPrintMode(t *testing.T) {
	for _, c := range retrytest.Tier2Cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Run("--wait", func(t *testing.T) { checkWait(t, c) })
			t.Run("--fallback", func(t *testing.T) { checkFallback(t, c) })
		})
	}
}

// checkWait runs c through --wait on a terminal, stepping the manual clock through the
// countdown's redraws until the retry is sent.
func checkWait(t *testing.T, c retrytest.Tier2Case) {
	clock := chattest.New(retrytest.Tier2Failed)
	o, srv := failingOnce(t, c, clock)
	stderr := new(chattest.Buffer)
	o.Stderr, o.StderrTerminal, o.Wait = stderr, true, 2*time.Hour
	exit := make(chan int, 1)
	go func() { exit <- Run(context.Background(), o) }()

	want := "parley: " + c.Shown + " · ctrl+c stops"
	var elapsed time.Duration
	shown := false
	for {
		// The countdown has drawn its line and waits d for the next.
		d := clock.NextWait(t)
		if elapsed <= c.Elapsed && c.Elapsed < elapsed+d {
			if got := lastDrawn(stderr.String()); got != want {
				t.Errorf("%v after the failure the countdown says %q, want %q", c.Elapsed, got, want)
			}
			shown = true
		}
		if elapsed+d >= c.Due {
			if elapsed+d != c.Due {
				t.Errorf("the retry is due %v after the failure, want %v", elapsed+d, c.Due)
			}
			if srv.Requests() != 1 {
				t.Errorf("%d requests before the retry was due", srv.Requests())
			}
			clock.Advance(d)
			break
		}
		clock.Advance(d)
		elapsed += d
	}
	if !shown {
		t.Errorf("the countdown was not on screen %v after the failure", c.Elapsed)
	}
	if code := <-exit; code != chat.ExitOK || srv.Requests() != 2 {
		t.Errorf("exit %d after %d requests, want 0 after the retry", code, srv.Requests())
	}
}

// checkFallback runs c with --fallback and no --wait: the fallback answers only where the
// table offers it; otherwise the failure stands.
func checkFallback(t *testing.T, c retrytest.Tier2Case) {
	clock := chattest.New(retrytest.Tier2Failed)
	o, _ := failingOnce(t, c, clock)
	spare := demotest.Start(t, demo.Options{})
	o.Fallback = agent.NewClient(agent.Endpoint{Name: "spare", BaseURL: spare.URL(), Model: "small"}, clock, oneAttempt)
	o.UseFallback = true
	code := Run(context.Background(), o)
	if c.Fallback && (code != chat.ExitOK || spare.Requests() != 1) {
		t.Errorf("offered a fallback: exit %d, %d requests to it; want 0 after 1", code, spare.Requests())
	}
	if !c.Fallback && (code != chat.ExitRetryable || spare.Requests() != 0) {
		t.Errorf("no fallback offered: exit %d, %d requests to it; want 3 after none", code, spare.Requests())
	}
}

// oneAttempt is a Tier 1 policy that never retries, so that a run fails as its first request
// does and Tier 2 takes over.
var oneAttempt = retry.Policy{MaxAttempts: 1, Base: time.Second, Cap: 30 * time.Second}

// failingOnce returns print mode's options for a prompt to an endpoint whose first answer is
// classified as c says (by a [[classify]] rule, its wait measured on clock) and whose next
// answer is a reply, and that endpoint.
func failingOnce(t *testing.T, c retrytest.Tier2Case, clock chat.Clock) (Options, *demo.Server) {
	t.Helper()
	srv := demotest.Start(t, demo.Options{}, demo.Fault{Status: 500, Body: `{"error":{"message":"tier two case","type":"server_error"}}`})
	wait := ""
	if !c.Class.RetryAfterUntil.IsZero() {
		wait = c.Class.RetryAfterUntil.Sub(retrytest.Tier2Failed).String()
	}
	rule, err := retry.NewUserRule("case", 500, "", "", "tier two case", string(c.Class.Class), nil, wait)
	if err != nil {
		t.Fatal(err)
	}
	db := historytest.Open(t)
	client := agent.NewClient(agent.Endpoint{Name: "main", BaseURL: srv.URL(), Model: "m"}, clock, oneAttempt).WithRules([]retry.UserRule{rule})
	return Options{DB: db, Client: client, Spend: &agent.SpendGuard{Ledger: db, Clock: clock}, Prompt: "hello",
		Stdout: new(chattest.Buffer), Stderr: new(chattest.Buffer), Clock: clock}, srv
}

// lastDrawn is the line a terminal shows last of what was written to it: the text after the
// last "erase the line".
func lastDrawn(s string) string {
	return s[strings.LastIndex(s, "\r\x1b[K")+len("\r\x1b[K"):]
}

// --wait behind a gateway names the route it waits for, in the countdown and when the wait
// would pass --wait: another route on the same URL and model is not what waits.
func TestAWaitNamesItsGatewayRoute(t *testing.T) {
	for _, c := range []struct {
		name string
		wait time.Duration
		want string
	}{
		{"the countdown", 2 * time.Hour, "parley: Rate limited — retrying after %s%s · ctrl+c stops\n"},
		{"past --wait", 10 * time.Minute, "parley: still Rate limited%s after waiting 0s; the next retry would be at %s, past --wait\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			clock := chattest.New(chattest.Start)
			srv := demotest.Start(t, demo.Options{}, demo.RateLimited(50*time.Minute))
			ep := agent.Endpoint{Name: "a", BaseURL: srv.URL(), Model: "gpt-4o-mini",
				Headers: map[string]string{"x-portkey-provider": "openai", "x-portkey-custom-host": "http://127.0.0.1:9001/v1"}}
			db := historytest.Open(t)
			stderr := new(chattest.Buffer)
			o := Options{DB: db, Client: agent.NewClient(ep, clock, oneAttempt), Spend: &agent.SpendGuard{Ledger: db, Clock: clock},
				Prompt: "hello", Stdout: new(chattest.Buffer), Stderr: stderr, Clock: clock, Wait: c.wait}
			ctx, cancel := context.WithCancel(context.Background())
			exit := make(chan int, 1)
			go func() { exit <- Run(ctx, o) }()
			route := " (route: " + ep.RouteLabel() + ")"
			due := chat.FormatClock(chattest.Start.Add(50*time.Minute), chattest.Start)
			want := fmt.Sprintf(c.want, due, route)
			if c.wait < time.Hour {
				want = fmt.Sprintf(c.want, route, due)
			}
			chattest.WaitFor(t, want, func() bool { return strings.Contains(stderr.String(), want) })
			cancel()
			<-exit
			if srv.Requests() != 1 {
				t.Errorf("%d requests, want 1", srv.Requests())
			}
		})
	}
}
