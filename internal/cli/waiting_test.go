package cli

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// Waiting in print mode: a provider's wait remembered across runs, --wait and --fallback (a
// [[classify]] rule deciding the wait is testdata/script/classify-rule.txtar). Waits pass on
// the user's instant clock, which says how long parley would have waited.

func rateLimited3000() demo.Fault {
	return demo.Fault{Status: 429, Header: map[string]string{"Retry-After": "3000"},
		Body: `{"error":{"message":"Rate limit reached for gpt-4o in organization org-x on requests per min (RPM): Limit 3, Used 3, Requested 1.","type":"requests","code":"rate_limit_exceeded"}}`}
}

// A provider's "come back in 50 minutes" outlives the process that heard it: the next parley
// (each run opens the history afresh, as a process does) sends nothing, at once, and says
// until when; --force sends; another model is not held.
func TestEndpointMemoryAcrossProcesses(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	srv.Push(rateLimited3000())
	clock := u.instantClock()
	args := []string{"--base-url", srv.URL(), "--model", "gpt-4o", "--json"}
	first := decode[printJSON](t, u.run(append([]string{"-p", "hello"}, args...)...).stdout)
	if srv.Requests() != 1 || first.Retry == nil || first.Retry.RetryAfterUntil == nil {
		t.Fatalf("first: %+v after %d requests", first, srv.Requests())
	}

	waits := len(clock.Waits())
	r := u.run(append([]string{"-p", "hello again"}, args...)...)
	second := decode[printJSON](t, r.stdout)
	if srv.Requests() != 1 || r.code != 3 || len(clock.Waits()) != waits {
		t.Fatalf("held: exit %d, %d requests, waited %v", r.code, srv.Requests(), clock.Waits()[waits:])
	}
	if second.Retry == nil || second.Retry.RetryAfterUntil == nil || *second.Retry.RetryAfterUntil != *first.Retry.RetryAfterUntil {
		t.Errorf("held run's retry %+v, want the stored %s", second.Retry, *first.Retry.RetryAfterUntil)
	}
	if !strings.Contains(r.stderr, "rate limited until ") || !strings.Contains(r.stderr, "(said at ") ||
		!strings.Contains(r.stderr, "— --wait to wait, --force to send anyway") {
		t.Errorf("stderr %q", r.stderr)
	}

	if r := u.run("-p", "other model", "--base-url", srv.URL(), "--model", "gpt-4o-mini"); r.code != 0 || srv.Requests() != 2 {
		t.Errorf("another model: exit %d, %d requests", r.code, srv.Requests())
	}
	if r := u.run(append([]string{"-p", "forced", "--force"}, args...)...); r.code != 0 || srv.Requests() != 3 {
		t.Errorf("--force: exit %d, %d requests: %s", r.code, srv.Requests(), r.stderr)
	}
}

// --wait waits between runs as the chat screen would: 2 s, then 4 s, never before the
// provider's time; within its limit, and no longer.
func TestWaitFlag(t *testing.T) {
	t.Parallel()
	t.Run("503 three times then ok", func(t *testing.T) {
		t.Parallel()
		u, srv := newServedUser(t)
		srv.Push(demo.Overloaded(), demo.Overloaded(), demo.Overloaded())
		clock := u.instantClock()
		r := u.run("-p", "hello", "--base-url", srv.URL(), "--model", "m", "--wait=20s")
		if r.code != 0 || srv.Requests() != 4 {
			t.Fatalf("exit %d after %d requests: %s", r.code, srv.Requests(), r.stderr)
		}
		// Tier 1 waited twice within the first run; then the countdown, before the retry.
		if waits := clock.Waits(); len(waits) != 3 || waits[2] < 2*time.Second {
			t.Errorf("waits %v: the first --wait retry must come 2 s after the failure", waits)
		}
		if !strings.Contains(r.stderr, "retrying in 2s (attempt 1)") {
			t.Errorf("stderr %q", r.stderr)
		}
	})
	t.Run("a separate value: --wait 20s", func(t *testing.T) {
		t.Parallel()
		u, srv := newServedUser(t)
		srv.Push(demo.Overloaded(), demo.Overloaded(), demo.Overloaded())
		u.instantClock()
		if r := u.run("--wait", "20s", "-p", "hello", "--base-url", srv.URL(), "--model", "m"); r.code != 0 || srv.Requests() != 4 {
			t.Fatalf("exit %d after %d requests: %s", r.code, srv.Requests(), r.stderr)
		}
	})
	t.Run("503,503,ok", func(t *testing.T) {
		t.Parallel()
		u, srv := newServedUser(t)
		srv.Push(demo.Overloaded(), demo.Overloaded())
		u.instantClock()
		if r := u.run("-p", "hello", "--base-url", srv.URL(), "--model", "m", "--wait=20s"); r.code != 0 || srv.Requests() != 3 {
			t.Fatalf("exit %d after %d requests", r.code, srv.Requests())
		}
	})
	t.Run("503 forever", func(t *testing.T) {
		t.Parallel()
		srv := demotest.Start(t, demo.Options{}, demo.Times(100, demo.Overloaded())...)
		u := newUser(t)
		clock := u.instantClock()
		start := clock.Now()
		r := u.run("-p", "hello", "--base-url", srv.URL(), "--model", "m", "--wait=20s", "--json")
		if waited := clock.Now().Sub(start); r.code != 3 || waited > 20*time.Second {
			t.Fatalf("exit %d after waiting %s", r.code, waited)
		}
		if out := decode[printJSON](t, r.stdout); out.Retry == nil || out.Retry.RetryClass != "overloaded" || out.Attempts != srv.Requests() {
			t.Errorf("%+v, %d requests", out, srv.Requests())
		}
		if !strings.Contains(r.stderr, "past --wait") {
			t.Errorf("stderr %q", r.stderr)
		}
	})
	t.Run("a remembered wait is waited for", func(t *testing.T) {
		t.Parallel()
		u, srv := newServedUser(t)
		srv.Push(demo.Fault{Status: 429, Header: map[string]string{"Retry-After": "45"},
			Body: `{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}`})
		u.instantClock()
		u.run("-p", "hello", "--base-url", srv.URL(), "--model", "m")
		r := u.run("-p", "hello", "--base-url", srv.URL(), "--model", "m", "--wait=5s")
		if r.code != 3 || srv.Requests() != 1 || !strings.Contains(r.stderr, "past --wait") {
			t.Errorf("a 45 s wait within --wait=5s: exit %d, %d requests, %q", r.code, srv.Requests(), r.stderr)
		}
	})
}

// --fallback sends a run that failed retryable with no output to the profile's fallback,
// once.
func TestPrintModeFallback(t *testing.T) {
	t.Parallel()
	main, spare := demotest.Start(t, demo.Options{}, demo.Times(10, demo.Overloaded())...), demotest.Start(t, demo.Options{})
	u := newUser(t)
	u.instantClock() // Tier 1's waits for the overloaded endpoint pass at once
	cfg := fmt.Sprintf("profile = \"main\"\n[profiles.main]\nbase_url = %q\nmodel = \"big\"\nfallback = \"spare\"\n[profiles.spare]\nbase_url = %q\nmodel = \"small\"\n", main.URL(), spare.URL())
	u.writeConfig(cfg)
	r := u.run("-p", "hello", "--fallback", "--json")
	out := decode[struct {
		printJSON
		Model string `json:"model"`
	}](t, r.stdout)
	if r.code != 0 || main.Requests() != 3 || spare.Requests() != 1 || out.Model != "small" {
		t.Fatalf("exit %d, %d + %d requests, model %q: %s", r.code, main.Requests(), spare.Requests(), out.Model, r.stderr)
	}
	// Without the flag the fallback is never used.
	if r := u.run("-p", "hello"); r.code != 3 || spare.Requests() != 1 {
		t.Errorf("without --fallback: exit %d, %d requests to the fallback", r.code, spare.Requests())
	}
}

// Pacing, across parleys: a provider that says no requests are left until a reset holds the
// next parley's send back, without a request, until then; with --wait it is sent after the
// reset, not before.
func TestPacingHoldsTheNextParley(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	clock := u.instantClock()
	srv.Push(demo.Fault{Header: map[string]string{"x-ratelimit-limit-requests": "3", "x-ratelimit-remaining-requests": "0",
		"x-ratelimit-reset-requests": "5s"}})
	if r := u.run("-p", "first", "--base-url", srv.URL(), "--model", "m"); r.code != 0 {
		t.Fatalf("first: exit %d %s", r.code, r.stderr)
	}
	said := clock.Now()
	held := u.run("-p", "second", "--base-url", srv.URL(), "--model", "m")
	if held.code != 3 || srv.Requests() != 1 || !strings.Contains(held.stderr, "the endpoint says 0 requests left until ") {
		t.Fatalf("held: exit %d, %d requests, stderr %q", held.code, srv.Requests(), held.stderr)
	}
	waited := u.run("-p", "third", "--base-url", srv.URL(), "--model", "m", "--wait=1m")
	if waited.code != 0 || srv.Requests() != 2 {
		t.Fatalf("--wait: exit %d, %d requests, stderr %q", waited.code, srv.Requests(), waited.stderr)
	}
	if now := clock.Now(); now.Before(said.Add(5 * time.Second)) {
		t.Errorf("sent at %v, before the reset at %v", now, said.Add(5*time.Second))
	}
}
