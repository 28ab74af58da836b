package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// parleyBin is the built binary, driven as a user drives it.
var parleyBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "parley-bin")
	if err != nil {
		panic(err)
	}
	parleyBin = filepath.Join(dir, "parley")
	if out, err := exec.Command("go", "build", "-o", parleyBin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building parley: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one run of the binary.
type result struct {
	stdout, stderr string
	code           int
}

// user is a person at a shell: a PARLEY_HOME of their own and a clean environment.
type user struct {
	t    *testing.T
	home string
	env  []string
}

func newUser(t *testing.T, env ...string) *user {
	home := t.TempDir()
	base := []string{"PARLEY_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH")}
	return &user{t: t, home: home, env: append(base, env...)}
}

func (u *user) command(args ...string) *exec.Cmd {
	cmd := exec.Command(parleyBin, args...)
	cmd.Env = u.env
	cmd.Stdin = strings.NewReader("")
	return cmd
}

// writeHome writes files (path under the user's PARLEY_HOME → text).
func (u *user) writeHome(files map[string]string) {
	u.t.Helper()
	for name, text := range files {
		p := filepath.Join(u.home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			u.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			u.t.Fatal(err)
		}
	}
}

// writeConfig writes the user's config.toml.
func (u *user) writeConfig(text string) {
	u.t.Helper()
	u.writeHome(map[string]string{"config.toml": text})
}

// run runs parley to its end with nothing on stdin.
func (u *user) run(args ...string) result {
	u.t.Helper()
	return u.pipe("", args...)
}

// pipe runs parley to its end with stdin piped in, as `printf STDIN | parley ARGS` does.
func (u *user) pipe(stdin string, args ...string) result {
	u.t.Helper()
	cmd := u.command(args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		u.t.Fatal(err)
	}
	return result{stdout.String(), stderr.String(), code}
}

// printJSON is print mode's --json object as a user's script reads it.
type printJSON struct {
	SessionID string `json:"session_id"`
	RunID     int64  `json:"run_id"`
	Status    string `json:"status"`
	Text      string `json:"text"`
	Attempts  int    `json:"attempts"`
	Error     *string
	Retry     *struct {
		Retryable       bool    `json:"retryable"`
		RetryClass      string  `json:"retry_class"`
		RetryAfterUntil *string `json:"retry_after_until"`
	} `json:"retry"`
}

func decode[T any](t *testing.T, s string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	return v
}

type exportJSON struct {
	Session struct {
		ID string `json:"id"`
	} `json:"session"`
	Messages []struct {
		ID         int64  `json:"id"`
		Role       string `json:"role"`
		Content    string `json:"content"`
		Status     string `json:"status"`
		RunID      *int64 `json:"run_id"`
		Superseded bool   `json:"superseded"`
		Retry      *struct {
			Retryable  bool   `json:"retryable"`
			RetryClass string `json:"retry_class"`
		} `json:"retry"`
	} `json:"messages"`
}

func TestPrintModeWithNothingConfiguredUsesTheDemo(t *testing.T) {
	u := newUser(t)
	r := u.run("-p", "hello")
	if r.code != 0 || r.stdout == "" || !strings.Contains(r.stderr, "demo") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = u.run("-p", "hello", "--json")
	out := decode[printJSON](t, r.stdout)
	if r.code != 0 || out.Status != "succeeded" || out.Text == "" || out.SessionID == "" || out.RunID == 0 || out.Attempts != 1 || out.Retry != nil || out.Error != nil {
		t.Fatalf("exit %d, %+v", r.code, out)
	}
	for _, key := range []string{"session_id", "run_id", "status", "text", "attempts", "error", "retry"} {
		if !strings.Contains(r.stdout, `"`+key+`":`) {
			t.Errorf("--json lacks %q: %s", key, r.stdout)
		}
	}
}

func TestPrintModeAgainstAServerThenExport(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	u := newUser(t)
	r := u.run("-p", "what are the keys?", "--base-url", srv.URL(), "--model", "m")
	if r.code != 0 || r.stdout == "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if got := srv.Received()[0].Messages; len(got) != 1 || got[0].Content != "what are the keys?" {
		t.Fatalf("server received %+v", got)
	}
	list := u.run("sessions", "--json")
	sessions := decode[[]struct{ ID string }](t, list.stdout)
	if list.code != 0 || len(sessions) != 1 {
		t.Fatalf("sessions: exit %d, %s", list.code, list.stdout)
	}
	exp := u.run("export", sessions[0].ID, "--json")
	e := decode[exportJSON](t, exp.stdout)
	if len(e.Messages) != 2 || e.Messages[0].Role != "user" || e.Messages[0].Content != "what are the keys?" ||
		e.Messages[1].Role != "assistant" || e.Messages[1].Status != "succeeded" || e.Messages[1].RunID == nil ||
		strings.TrimSpace(e.Messages[1].Content) != strings.TrimSpace(r.stdout) {
		t.Fatalf("export: %s", exp.stdout)
	}
	md := u.run("export", sessions[0].ID, "--markdown")
	if md.code != 0 || !strings.Contains(md.stdout, "what are the keys?") {
		t.Fatalf("markdown export: %d %s", md.code, md.stdout)
	}
	err := filepath.Walk(u.home, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && info.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", path, info.Mode().Perm())
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestPrintModeContinuesASession(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	u := newUser(t)
	first := decode[printJSON](t, u.run("-p", "first", "--base-url", srv.URL(), "--model", "m", "--json").stdout)
	second := decode[printJSON](t, u.run("-p", "second", "-c", "--base-url", srv.URL(), "--model", "m", "--json").stdout)
	third := decode[printJSON](t, u.run("-p", "third", "--session", first.SessionID, "--base-url", srv.URL(), "--model", "m", "--json").stdout)
	if second.SessionID != first.SessionID || third.SessionID != first.SessionID {
		t.Fatalf("sessions %s, %s, %s: want one session", first.SessionID, second.SessionID, third.SessionID)
	}
	msgs := srv.Received()[2].Messages
	if len(msgs) != 5 || msgs[0].Content != "first" || msgs[2].Content != "second" || msgs[4].Content != "third" {
		t.Fatalf("third request carried %+v, want the whole conversation", msgs)
	}
}

func TestPrintModeReadsStdin(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	if r := newUser(t).pipe("from a pipe", "--base-url", srv.URL(), "--model", "m"); r.code != 0 || r.stdout == "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if got := srv.Received()[0].Messages[0].Content; got != "from a pipe" {
		t.Fatalf("sent %q", got)
	}
}

func TestPrintModeCutMidStreamKeepsPartialText(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	srv.Push(demo.Fault{CutAfter: 4})
	u := newUser(t)
	r := u.run("-p", "hello", "--base-url", srv.URL(), "--model", "m", "--json")
	out := decode[printJSON](t, r.stdout)
	if r.code != 3 || out.Status != "failed" || out.Retry == nil || out.Retry.RetryClass != "network" || out.Text == "" || srv.Requests() != 1 {
		t.Fatalf("exit %d, %d requests, %+v", r.code, srv.Requests(), out)
	}
	e := decode[exportJSON](t, u.run("export", out.SessionID, "--json").stdout)
	reply := e.Messages[1]
	if reply.Status != "failed" || reply.Content != out.Text || reply.Retry == nil || reply.Retry.RetryClass != "network" {
		t.Fatalf("stored reply %+v, want failed with the partial text %q", reply, out.Text)
	}
}

func TestPrintModeBadKeyFailsOnce(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	srv.Push(demo.BadKey(), demo.BadKey())
	r := newUser(t).run("-p", "hello", "--base-url", srv.URL(), "--model", "m")
	if r.code != 1 || srv.Requests() != 1 || !strings.Contains(r.stderr, "Authentication failed") {
		t.Fatalf("exit %d, %d requests, stderr %q", r.code, srv.Requests(), r.stderr)
	}
}

// start starts parley in the background, its output readable while it runs.
func (u *user) start(args ...string) (cmd *exec.Cmd, stdout, stderr *syncBuffer) {
	u.t.Helper()
	cmd = u.command(args...)
	stdout, stderr = newSyncBuffer(), newSyncBuffer()
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		u.t.Fatal(err)
	}
	return cmd, stdout, stderr
}

// interrupt sends parley SIGINT, as ctrl+c in its shell would, and checks that it exits 130
// within a second.
func interrupt(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	sent := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want 130", err)
	}
	if took := time.Since(sent); took > time.Second {
		t.Fatalf("took %v to stop after SIGINT", took)
	}
}

// waitFor polls until cond holds, failing the test after a few seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// syncBuffer is a bytes.Buffer safe to read while a process writes it.
type syncBuffer struct {
	mu  chan struct{}
	buf bytes.Buffer
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{mu: make(chan struct{}, 1)} }
func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu <- struct{}{}
	defer func() { <-b.mu }()
	return b.buf.Write(p)
}
func (b *syncBuffer) String() string {
	b.mu <- struct{}{}
	defer func() { <-b.mu }()
	return b.buf.String()
}

func TestSIGINTWhileStreamingCancels(t *testing.T) {
	srv := demotest.Start(t, demo.Options{Pace: 20 * time.Millisecond})
	u := newUser(t)
	cmd, stdout, _ := u.start("-p", "tell me about retries", "--base-url", srv.URL(), "--model", "m", "--json")
	waitFor(t, "the request", func() bool { return srv.Requests() == 1 })
	time.Sleep(200 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want 130", err)
	}
	out := decode[printJSON](t, stdout.String())
	if out.Status != "cancelled" || out.Text == "" {
		t.Fatalf("%+v, want cancelled with partial text", out)
	}
	e := decode[exportJSON](t, u.run("export", out.SessionID, "--json").stdout)
	if e.Messages[1].Status != "cancelled" || e.Messages[1].Content != out.Text {
		t.Fatalf("stored %+v, want cancelled with the partial text", e.Messages[1])
	}
}

func TestBadConfigurationExits2AndChangesNothing(t *testing.T) {
	u := newUser(t)
	cfg := filepath.Join(u.home, "config.toml")
	bad := []byte("[profiles.local]\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \n")
	if err := os.WriteFile(cfg, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	before := sha256.Sum256(bad)
	r := u.run("-p", "hello")
	after, _ := os.ReadFile(cfg)
	if r.code != 2 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, "config.toml line 3") || sha256.Sum256(after) != before {
		t.Fatalf("exit %d, stderr %q, file changed: %v", r.code, r.stderr, sha256.Sum256(after) != before)
	}

	r = newUser(t).run("-p", "hello", "--base-url", "ftp//nowhere", "--model", "m")
	if r.code != 2 || !strings.Contains(r.stderr, "invalid base URL") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Fatalf("bad URL: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestMissingNamedKeySendsNothing(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	u := newUser(t)
	r := u.run("-p", "hello", "--base-url", srv.URL(), "--model", "m", "--api-key-env", "PARLEY_TEST_UNSET_KEY", "--json")
	out := decode[printJSON](t, r.stdout)
	if r.code != 1 || srv.Requests() != 0 || out.Retry == nil || out.Retry.RetryClass != "credentials_unresolved" ||
		!strings.Contains(r.stderr, "PARLEY_TEST_UNSET_KEY is not set") {
		t.Fatalf("exit %d, %d requests, %+v, stderr %q", r.code, srv.Requests(), out, r.stderr)
	}
	// A remote endpoint with no key at all fails the same way, before anything is sent.
	r = u.run("-p", "hello", "--base-url", "https://llm.invalid/v1", "--model", "m", "--json")
	if r.code != 1 || !strings.Contains(r.stdout, "credentials_unresolved") {
		t.Fatalf("remote without key: exit %d, %s %s", r.code, r.stdout, r.stderr)
	}
}

// The scenarios of Tier 1, against a request-counting fault server.
func TestTier1Scenarios(t *testing.T) {
	// An HTTP date has whole seconds: the retry must come no sooner than that second.
	dateAdvice := time.Now().Add(3 * time.Second).Truncate(time.Second)
	scenarios := []struct {
		name      string
		faults    []demo.Fault
		code      int
		requests  int
		minGap    time.Duration // least time between the first and last request
		notBefore time.Time     // the last request comes no sooner than this
		class     string
		untilSoon time.Duration // retry_after_until expected about this far ahead
	}{
		{name: "503,503,ok", faults: []demo.Fault{demo.Overloaded(), demo.Overloaded()}, code: 0, requests: 3},
		{name: "503 forever", faults: []demo.Fault{demo.Overloaded(), demo.Overloaded(), demo.Overloaded(), demo.Overloaded()}, code: 3, requests: 3, class: "overloaded"},
		{name: "429 Retry-After 2 then ok", faults: []demo.Fault{{Status: 429, Header: map[string]string{"Retry-After": "2"}, Body: `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`}}, code: 0, requests: 2, minGap: 2 * time.Second},
		{name: "retry-after-ms", faults: []demo.Fault{{Status: 429, Header: map[string]string{"retry-after-ms": "1500"}, Body: `{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}`}}, code: 0, requests: 2, minGap: 1500 * time.Millisecond},
		{name: "HTTP-date Retry-After", faults: []demo.Fault{{Status: 503, Header: map[string]string{"Retry-After": dateAdvice.UTC().Format(http.TimeFormat)}, Body: `{"error":{"message":"overloaded"}}`}}, code: 0, requests: 2, notBefore: dateAdvice},
		{name: "429 Retry-After 3000", faults: []demo.Fault{{Status: 429, Header: map[string]string{"Retry-After": "3000"}, Body: `{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}`}}, code: 3, requests: 1, class: "rate_limited", untilSoon: 3000 * time.Second},
		{name: "reset 45m0s", faults: []demo.Fault{{Status: 429, Header: map[string]string{"x-ratelimit-reset-requests": "45m0s", "x-ratelimit-remaining-requests": "0"}, Body: `{"error":{"message":"Rate limit reached for requests","code":"rate_limit_exceeded"}}`}}, code: 3, requests: 1, class: "rate_limited", untilSoon: 45 * time.Minute},
		{name: "insufficient_quota", faults: []demo.Fault{demo.Quota(), demo.Quota()}, code: 1, requests: 1, class: "quota_exhausted"},
		{name: "401", faults: []demo.Fault{demo.BadKey(), demo.BadKey()}, code: 1, requests: 1, class: "auth_failed"},
		{name: "error event then ok", faults: []demo.Fault{demo.ErrorEvent()}, code: 0, requests: 2},
		{name: "reset before headers then ok", faults: []demo.Fault{{Reset: true}}, code: 0, requests: 2},
		{name: "cut after 4 deltas", faults: []demo.Fault{{CutAfter: 4}}, code: 3, requests: 1, class: "network"},
		{name: "x-should-retry false", faults: []demo.Fault{{Status: 503, Header: map[string]string{"x-should-retry": "false"}, Body: `{"error":{"message":"overloaded"}}`}, demo.Overloaded()}, code: 1, requests: 1, class: "overloaded"},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			srv := demotest.Start(t, demo.Options{})
			srv.Push(sc.faults...)
			start := time.Now()
			r := newUser(t).run("-p", "hello", "--base-url", srv.URL(), "--model", "m", "--json")
			out := decode[printJSON](t, r.stdout)
			if r.code != sc.code || srv.Requests() != sc.requests {
				t.Fatalf("exit %d after %d requests, want exit %d after %d; %+v %s", r.code, srv.Requests(), sc.code, sc.requests, out, r.stderr)
			}
			if sc.class != "" && (out.Retry == nil || out.Retry.RetryClass != sc.class) {
				t.Fatalf("classified %+v, want %s", out.Retry, sc.class)
			}
			if got := srv.Received(); sc.minGap > 0 && got[len(got)-1].Time.Sub(got[0].Time) < sc.minGap {
				t.Fatalf("retried after %v, sooner than the advised %v", got[len(got)-1].Time.Sub(got[0].Time), sc.minGap)
			}
			if got := srv.Received(); !sc.notBefore.IsZero() && got[len(got)-1].Time.Before(sc.notBefore) {
				t.Fatalf("retried at %v, before the advised %v", got[len(got)-1].Time, sc.notBefore)
			}
			if sc.untilSoon > 0 {
				until, err := time.Parse(time.RFC3339, *out.Retry.RetryAfterUntil)
				if err != nil {
					t.Fatal(err)
				}
				if ahead := until.Sub(start); ahead < sc.untilSoon-5*time.Second || ahead > sc.untilSoon+5*time.Second {
					t.Fatalf("retry_after_until is %v ahead, want about %v", ahead, sc.untilSoon)
				}
			}
			if sc.code == 0 && out.Attempts != sc.requests {
				t.Fatalf("attempts %d, want %d", out.Attempts, sc.requests)
			}
		})
	}
}

func TestSIGINTDuringATier1Wait(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	srv.Push(demo.Fault{Status: 429, Header: map[string]string{"Retry-After": "20"}, Body: `{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}`})
	u := newUser(t)
	cmd, _, stderr := u.start("-p", "hello", "--base-url", srv.URL(), "--model", "m")
	waitFor(t, "the Tier 1 wait", func() bool { return strings.Contains(stderr.String(), "reconnecting") })
	interrupt(t, cmd)
	time.Sleep(300 * time.Millisecond)
	if srv.Requests() != 1 {
		t.Fatalf("%d requests, want 1: nothing more after SIGINT", srv.Requests())
	}
}

// spendJSON is the part of print mode's --json that reports spend and compaction.
type spendJSON struct {
	printJSON
	Usage struct {
		PromptTokens     int  `json:"prompt_tokens"`
		CompletionTokens int  `json:"completion_tokens"`
		Estimated        bool `json:"estimated"`
	} `json:"usage"`
	CostUSD         float64 `json:"cost_usd"`
	OmittedMessages int     `json:"omitted_messages"`
}

// longSession makes a session of turns operator messages and replies in u's history, against
// srv, and returns its id.
func longSession(t *testing.T, u *user, srv *demo.Server, turns int) string {
	t.Helper()
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 20)
	id := ""
	for i := range turns {
		args := []string{"-p", fmt.Sprintf("question %d: %s", i, filler), "--base-url", srv.URL(), "--model", "m", "--json"}
		if id != "" {
			args = append(args, "--session", id)
		}
		r := u.run(args...)
		if r.code != 0 {
			t.Fatalf("building the session: exit %d %s", r.code, r.stderr)
		}
		id = decode[printJSON](t, r.stdout).SessionID
	}
	return id
}

// Against a server that rejects prompts above a token budget, in each provider's form: a long
// session compacts once and succeeds; history keeps every message.
func TestPrintModeCompactsALongSessionOnOverflow(t *testing.T) {
	for _, form := range demo.Overflows {
		t.Run(string(form), func(t *testing.T) {
			t.Parallel()
			srv := demotest.Start(t, demo.Options{})
			u := newUser(t)
			id := longSession(t, u, srv, 5)
			srv.SetContext(500, form)
			before := srv.Requests()
			r := u.run("-p", "and in short?", "--session", id, "--base-url", srv.URL(), "--model", "m", "--json")
			out := decode[spendJSON](t, r.stdout)
			if r.code != 0 || out.Status != "succeeded" || srv.Requests()-before != 2 || out.Attempts != 2 {
				t.Fatalf("exit %d after %d requests, %+v, stderr %q", r.code, srv.Requests()-before, out, r.stderr)
			}
			sent := srv.Received()[srv.Requests()-1].Messages
			if out.OmittedMessages == 0 || len(sent) != 11-out.OmittedMessages || sent[len(sent)-1].Content != "and in short?" {
				t.Fatalf("omitted %d; the re-run carried %d messages ending %q", out.OmittedMessages, len(sent), sent[len(sent)-1].Content)
			}
			if !strings.Contains(r.stderr, fmt.Sprintf("parley: %d earlier messages left out to fit the model's context", out.OmittedMessages)) {
				t.Fatalf("stderr %q lacks the note", r.stderr)
			}
			e := decode[exportJSON](t, u.run("export", id, "--json").stdout)
			if len(e.Messages) != 12 {
				t.Fatalf("history holds %d messages, want all 12", len(e.Messages))
			}
		})
	}
}

func TestPrintModeOversizeMessageFailsAsContextOverflow(t *testing.T) {
	for _, form := range demo.Overflows {
		t.Run(string(form), func(t *testing.T) {
			t.Parallel()
			srv := demotest.Start(t, demo.Options{ContextTokens: 100, Overflow: form})
			r := newUser(t).run("-p", strings.Repeat("much too long ", 100), "--base-url", srv.URL(), "--model", "m", "--json")
			out := decode[printJSON](t, r.stdout)
			if r.code != 1 || out.Retry == nil || out.Retry.RetryClass != "context_overflow" || out.Retry.Retryable || srv.Requests() > 2 {
				t.Fatalf("exit %d after %d requests, %+v", r.code, srv.Requests(), out.Retry)
			}
		})
	}
}

func TestPrintModeCompactsBeforeSendingWithAConfiguredContext(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	u := newUser(t)
	id := longSession(t, u, srv, 5)
	srv.SetContext(500, demo.OverflowOpenAI)
	cfg := fmt.Sprintf("[profiles.small]\nbase_url = %q\nmodel = \"m\"\ncontext_tokens = 600\n", srv.URL())
	u.writeConfig(cfg)
	before := srv.Requests()
	r := u.run("-p", "and in short?", "--session", id, "--profile", "small", "--json")
	out := decode[spendJSON](t, r.stdout)
	if r.code != 0 || srv.Requests()-before != 1 || out.OmittedMessages == 0 {
		t.Fatalf("exit %d after %d requests, omitted %d, stderr %q", r.code, srv.Requests()-before, out.OmittedMessages, r.stderr)
	}
}

func TestPrintModeSpendLimitCrossedByTheEstimateSendsNothing(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	u := newUser(t)
	r := u.run("-p", strings.Repeat("a long prompt ", 100), "--base-url", srv.URL(), "--model", "m", "--max-tokens-session", "100", "--json")
	out := decode[printJSON](t, r.stdout)
	if r.code != 1 || srv.Requests() != 0 || out.Retry == nil || out.Retry.RetryClass != "spend_limit_exceeded" || out.Retry.Retryable || out.Attempts != 0 {
		t.Fatalf("exit %d after %d requests, %+v", r.code, srv.Requests(), out)
	}
	e := decode[exportJSON](t, u.run("export", out.SessionID, "--json").stdout)
	if len(e.Messages) != 2 || e.Messages[1].Status != "failed" || e.Messages[1].Retry == nil || e.Messages[1].Retry.RetryClass != "spend_limit_exceeded" {
		t.Fatalf("stored %+v, want the message and a failed run classified spend_limit_exceeded", e.Messages)
	}
}

func TestPrintModeSpendLimitCrossedByUsageStopsTheNextRequest(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	u := newUser(t)
	// The first prompt's estimate is well under 150 tokens; the reply takes the session past it.
	first := decode[spendJSON](t, u.run("-p", "tell me about retries", "--base-url", srv.URL(), "--model", "m", "--max-tokens-session", "150", "--json").stdout)
	if first.Status != "succeeded" || first.Usage.PromptTokens+first.Usage.CompletionTokens <= 150 {
		t.Fatalf("first run %+v: the test needs it past 150 tokens", first)
	}
	r := u.run("-p", "hi", "-c", "--base-url", srv.URL(), "--model", "m", "--max-tokens-session", "150", "--json")
	out := decode[printJSON](t, r.stdout)
	if r.code != 1 || srv.Requests() != 1 || out.Retry == nil || out.Retry.RetryClass != "spend_limit_exceeded" {
		t.Fatalf("exit %d after %d requests, %+v", r.code, srv.Requests(), out.Retry)
	}
}

// The daily money limit is counted from history: it holds in the next process, for a new
// session, and prices come from OpenAI's presets or the profile.
func TestPrintModeDailySpendLimitSurvivesARestart(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	u := newUser(t)
	first := decode[spendJSON](t, u.run("-p", "tell me about retries", "--base-url", srv.URL(), "--model", "gpt-4o", "--max-spend", "0.002", "--json").stdout)
	want := (float64(first.Usage.PromptTokens)*2.50 + float64(first.Usage.CompletionTokens)*10) / 1e6
	if first.Status != "succeeded" || first.CostUSD != want || first.CostUSD <= 0.002 {
		t.Fatalf("first run %+v, cost %v want %v (past $0.002)", first, first.CostUSD, want)
	}
	r := u.run("-p", "hi", "--base-url", srv.URL(), "--model", "gpt-4o", "--max-spend", "$0.002", "--json")
	out := decode[printJSON](t, r.stdout)
	if r.code != 1 || srv.Requests() != 1 || out.Retry == nil || out.Retry.RetryClass != "spend_limit_exceeded" || out.Retry.RetryAfterUntil == nil {
		t.Fatalf("exit %d after %d requests, %+v", r.code, srv.Requests(), out.Retry)
	}
	// The same limit from config, in another process: still refused. An unpriced model costs
	// nothing, so it may go on.
	cfg := fmt.Sprintf("[limits]\nmax_spend_day = 0.002\n\n[profiles.paid]\nbase_url = %q\nmodel = \"house-model\"\nprice_input = 2.5\nprice_output = 10\n", srv.URL())
	u.writeConfig(cfg)
	if r := u.run("-p", "hi", "--base-url", srv.URL(), "--model", "gpt-4o"); r.code != 1 || srv.Requests() != 1 {
		t.Fatalf("config limit: exit %d after %d requests, %s", r.code, srv.Requests(), r.stderr)
	}
	if r := u.run("-p", "hi", "--base-url", srv.URL(), "--model", "local-model"); r.code != 0 || srv.Requests() != 2 {
		t.Fatalf("unpriced model: exit %d after %d requests, %s", r.code, srv.Requests(), r.stderr)
	}
	paid := decode[spendJSON](t, u.run("-p", "hi", "--profile", "paid", "--json").stdout)
	if paid.Retry == nil || paid.Retry.RetryClass != "spend_limit_exceeded" || srv.Requests() != 2 {
		t.Fatalf("priced profile: %+v after %d requests", paid.Retry, srv.Requests())
	}
}

// The spend flags are parsed here; the config file's limits and prices are checked by
// internal/config.s tests, and their exit status by TestBadConfigurationExits2AndChangesNothing.
func TestSpendFlagsAreChecked(t *testing.T) {
	u := newUser(t)
	for _, args := range [][]string{
		{"-p", "hi", "--demo", "--max-spend", "lots"},
		{"-p", "hi", "--demo", "--max-spend", "-1"},
		{"-p", "hi", "--demo", "--max-tokens-session", "1.5"},
	} {
		if r := u.run(args...); r.code != 2 || !strings.Contains(r.stderr, "max-") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}

func TestEmptyPromptIsAUsageError(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	u := newUser(t)
	for _, c := range []struct {
		stdin string
		args  []string
	}{
		{"\n", nil}, // echo "" | parley
		{" \t\n\n", nil},
		{"", []string{"-p", ""}},
		{"", []string{"-p", "  \n"}},
	} {
		r := u.pipe(c.stdin, append([]string{"--base-url", srv.URL(), "--model", "m"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, "empty prompt") {
			t.Errorf("stdin %q, args %q: exit %d, stderr %q; want exit 2", c.stdin, c.args, r.code, r.stderr)
		}
	}
	if srv.Requests() != 0 || strings.TrimSpace(u.run("sessions").stdout) != "" {
		t.Fatalf("%d requests, sessions %q: an empty prompt sends and stores nothing", srv.Requests(), u.run("sessions").stdout)
	}
}

func TestPrintModeErrorsNameTheFix(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	base := strings.TrimSuffix(srv.URL(), "/v1")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	for _, c := range []struct {
		name, url string
		fault     bool // the server answers 401 invalid_api_key
		code      int
		want      string
	}{
		{"the chat path in the base URL", base + "/chat/completions", false, 1,
			"at " + base + "/chat/completions/chat/completions: the base URL should end in /v1: use " + base + "/v1"},
		{"no /v1", base, false, 1, "at " + base + "/chat/completions: the base URL should end in /v1: use " + base + "/v1"},
		{"nothing listening", "http://" + closed + "/v1", false, 1,
			"nothing is listening on " + closed + " (connection refused): is the server running? Start it, then send again"},
		{"no key sent", srv.URL(), true, 1, "no API key was sent; set OPENAI_API_KEY to the server's key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.fault {
				srv.Push(demo.BadKey())
			}
			r := newUser(t).run("-p", "hello", "--base-url", c.url, "--model", "m")
			if r.code != c.code || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit %d and %q", r.code, r.stderr, c.code, c.want)
			}
			t.Logf("%s", strings.TrimSpace(r.stderr[strings.LastIndex(strings.TrimSpace(r.stderr), "\n")+1:]))
		})
	}
}
