package main

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"parley/internal/demo"
	"parley/internal/demo/demotest"
	"parley/retry/retrytest"
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
	before := srv.Requests()
	interrupt(t, cmd)
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

// Every entry of the shared corpus, replayed as raw text (an HTTP response, or the stream
// for in-stream errors), is classified by `parley classify` as it should be.
func TestClassifyCommandOnTheCorpus(t *testing.T) {
	data, err := os.ReadFile("../shared/errors/corpus.json")
	if errors.Is(err, os.ErrNotExist) {
		t.Skip("the shared error corpus is not beside the repository")
	}
	var entries []retrytest.CorpusEntry
	if err := json.Unmarshal(data, &entries); err != nil {
		t.Fatal(err)
	}
	u := newUser(t)
	inStream := 0
	for _, e := range entries {
		raw, ok := e.Raw()
		if !ok {
			continue
		}
		if e.Phase == "in_stream" {
			inStream++
		}
		path := filepath.Join(t.TempDir(), e.ID+".txt")
		os.WriteFile(path, []byte(raw), 0o600)
		r := u.run("classify", path, "--json")
		var got struct {
			Retryable bool   `json:"retryable"`
			Class     string `json:"retry_class"`
			Rule      string `json:"rule"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 0 {
			t.Errorf("%s: exit %d, %v: %s%s", e.ID, r.code, err, r.stdout, r.stderr)
			continue
		}
		if got.Class != e.ExpectedClass || got.Retryable != e.Retryable || got.Rule == "" {
			t.Errorf("%s (%s): %s retryable=%v by %q, want %s retryable=%v", e.ID, e.Phase, got.Class, got.Retryable, got.Rule, e.ExpectedClass, e.Retryable)
		}
	}
	if inStream == 0 {
		t.Error("no in-stream entry was replayed")
	}
}

// A [[classify]] rule in config.toml decides before the built-in rules: the run is stored
// with it, and print mode says which rule decided; a malformed rule stops parley, named.
func TestClassifyRuleInConfig(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	warming := demo.Fault{Status: 500, Body: `{"error":{"message":"Model is warming up, please retry shortly","type":"server_error"}}`}
	srv.Push(warming, warming, warming)
	u := newUser(t)
	cfg := "[[classify]]\nname = \"warmup\"\nstatus = 500\nmessage = \"(?i)warming up\"\nclass = \"overloaded\"\nwait = \"45s\"\n"
	u.writeConfig(cfg)
	r := u.run("-p", "hello", "--base-url", srv.URL(), "--model", "m", "--json")
	var out struct {
		Retry struct {
			Class string  `json:"retry_class"`
			Rule  string  `json:"rule"`
			Until *string `json:"retry_after_until"`
		} `json:"retry"`
		SessionID string `json:"session_id"`
	}
	json.Unmarshal([]byte(r.stdout), &out)
	// Built in, a 500 is a server error retried at once; the rule makes it an overload with a
	// 45 s wait, which Tier 1 hands to Tier 2 without a second request.
	if r.code != 3 || out.Retry.Class != "overloaded" || out.Retry.Rule != "user:warmup" || out.Retry.Until == nil || srv.Requests() != 1 {
		t.Fatalf("exit %d after %d requests: %+v %s", r.code, srv.Requests(), out, r.stderr)
	}
	if exp := u.run("export", out.SessionID, "--markdown"); !strings.Contains(exp.stdout, "rule user:warmup") {
		t.Errorf("export does not name the rule:\n%s", exp.stdout)
	}

	bad := newUser(t)
	for _, c := range []struct{ cfg, want string }{
		{"[[classify]]\nname = \"x\"\nstatus = 429\nclass = \"slow\"\n", `classify rule "x": class "slow" is not one a rule can set`},
		{"[[classify]]\nname = \"y\"\nmessage = \"(unclosed\"\nclass = \"overloaded\"\n", `classify rule "y": message "(unclosed" is not a regular expression`},
		{"[[classify]]\nclass = \"overloaded\"\n", "[[classify]] number 1"},
	} {
		bad.writeConfig(c.cfg)
		r := bad.run("-p", "hello", "--base-url", srv.URL(), "--model", "m")
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("exit %d, stderr %q; want exit 2 and one line with %q", r.code, r.stderr, c.want)
		}
	}
}
