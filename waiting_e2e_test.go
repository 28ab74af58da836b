package main

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"parley/agent/demo"
	"parley/agent/demo/demotest"
)

func rateLimited3000() demo.Fault {
	return demo.Fault{Status: 429, Header: map[string]string{"Retry-After": "3000"},
		Body: `{"error":{"message":"Rate limit reached for gpt-4o in organization org-x on requests per min (RPM): Limit 3, Used 3, Requested 1.","type":"requests","code":"rate_limit_exceeded"}}`}
}

// A provider's "come back in 50 minutes" outlives the process that heard it: the next parley
// sends nothing and says until when; --force sends; another model is not held.
func TestEndpointMemoryAcrossProcesses(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	srv.Push(rateLimited3000())
	u := newUser(t)
	args := []string{"--base-url", srv.URL(), "--model", "gpt-4o", "--json"}
	first := decode[printJSON](t, u.run(append([]string{"-p", "hello"}, args...)...).stdout)
	if srv.Requests() != 1 || first.Retry == nil || first.Retry.RetryAfterUntil == nil {
		t.Fatalf("first: %+v after %d requests", first, srv.Requests())
	}

	start := time.Now()
	r := u.run(append([]string{"-p", "hello again"}, args...)...)
	took := time.Since(start)
	second := decode[printJSON](t, r.stdout)
	if srv.Requests() != 1 || r.code != 3 || took > time.Second {
		t.Fatalf("held: exit %d, %d requests, took %s", r.code, srv.Requests(), took)
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
	t.Run("503 three times then ok", func(t *testing.T) {
		t.Parallel()
		srv := demotest.Start(t, demo.Options{})
		srv.Push(demo.Overloaded(), demo.Overloaded(), demo.Overloaded())
		r := newUser(t).run("-p", "hello", "--base-url", srv.URL(), "--model", "m", "--wait=20s")
		got := srv.Received()
		if r.code != 0 || len(got) != 4 {
			t.Fatalf("exit %d after %d requests: %s", r.code, len(got), r.stderr)
		}
		if gap := got[3].Time.Sub(got[2].Time); gap < 2*time.Second {
			t.Errorf("the first --wait retry came %s after the failure, before its 2 s", gap)
		}
		if !strings.Contains(r.stderr, "retrying in 2s (attempt 1)") {
			t.Errorf("stderr %q", r.stderr)
		}
	})
	t.Run("503,503,ok", func(t *testing.T) {
		t.Parallel()
		srv := demotest.Start(t, demo.Options{})
		srv.Push(demo.Overloaded(), demo.Overloaded())
		if r := newUser(t).run("-p", "hello", "--base-url", srv.URL(), "--model", "m", "--wait=20s"); r.code != 0 || srv.Requests() != 3 {
			t.Fatalf("exit %d after %d requests", r.code, srv.Requests())
		}
	})
	t.Run("503 forever", func(t *testing.T) {
		t.Parallel()
		srv := demotest.Start(t, demo.Options{})
		for range 100 {
			srv.Push(demo.Overloaded())
		}
		start := time.Now()
		r := newUser(t).run("-p", "hello", "--base-url", srv.URL(), "--model", "m", "--wait=20s", "--json")
		if took := time.Since(start); r.code != 3 || took > 20*time.Second {
			t.Fatalf("exit %d after %s", r.code, took)
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
		srv := demotest.Start(t, demo.Options{})
		srv.Push(demo.Fault{Status: 429, Header: map[string]string{"Retry-After": "45"},
			Body: `{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}`})
		u := newUser(t)
		u.run("-p", "hello", "--base-url", srv.URL(), "--model", "m")
		r := u.run("-p", "hello", "--base-url", srv.URL(), "--model", "m", "--wait=5s")
		if r.code != 3 || srv.Requests() != 1 || !strings.Contains(r.stderr, "past --wait") {
			t.Errorf("a 45 s wait within --wait=5s: exit %d, %d requests, %q", r.code, srv.Requests(), r.stderr)
		}
	})
}

func TestSIGINTDuringAWait(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	for range 10 {
		srv.Push(demo.Overloaded())
	}
	cmd, _, stderr := newUser(t).start("-p", "hello", "--base-url", srv.URL(), "--model", "m", "--wait")
	waitFor(t, "the --wait countdown", func() bool { return strings.Contains(stderr.String(), "retrying in") })
	sent, before := time.Now(), srv.Requests()
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want 130", err)
	}
	if took := time.Since(sent); took > time.Second {
		t.Errorf("took %s to stop", took)
	}
	time.Sleep(2500 * time.Millisecond) // past the 2 s the countdown was at
	if srv.Requests() != before {
		t.Errorf("%d requests after SIGINT", srv.Requests()-before)
	}
}

// Twenty scripts into an outage make twenty first attempts and the shared budget's twelve
// retries, not sixty; the database they share is whole afterwards.
func TestRetryBudgetAcrossProcesses(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	for range 100 {
		srv.Push(demo.Overloaded())
	}
	u := newUser(t)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u.run("-p", fmt.Sprintf("file %d", i), "--base-url", srv.URL(), "--model", "m")
		}()
	}
	wg.Wait()
	n := 0
	for _, r := range srv.Received() {
		if r.Time.Sub(start) < time.Minute {
			n++
		}
	}
	t.Logf("%d requests from 20 processes in %s", n, time.Since(start).Round(time.Millisecond))
	if n > 34 || n < 20 {
		t.Errorf("%d requests within a minute; want 20 first attempts and at most the budget's 12 retries (+2 slack)", n)
	}
	db, err := sql.Open("sqlite", filepath.Join(u.home, "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ok string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Errorf("integrity_check: %q, %v", ok, err)
	}
	var runs int
	db.QueryRow("SELECT count(*) FROM runs WHERE status = 'failed'").Scan(&runs)
	if runs != 20 {
		t.Errorf("%d failed runs stored, want 20", runs)
	}
}

// --fallback sends a run that failed retryable with no output to the profile's fallback,
// once.
func TestPrintModeFallback(t *testing.T) {
	main, spare := demotest.Start(t, demo.Options{}), demotest.Start(t, demo.Options{})
	for range 10 {
		main.Push(demo.Overloaded())
	}
	u := newUser(t)
	cfg := fmt.Sprintf("profile = \"main\"\n[profiles.main]\nbase_url = %q\nmodel = \"big\"\nfallback = \"spare\"\n[profiles.spare]\nbase_url = %q\nmodel = \"small\"\n", main.URL(), spare.URL())
	os.WriteFile(filepath.Join(u.home, "config.toml"), []byte(cfg), 0o600)
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
