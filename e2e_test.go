package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

func TestOperatorMessageIsStoredBeforeTheRequest(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	srv.Push(demo.Fault{Delay: 2 * time.Second})
	u := newUser(t)
	cmd, _, _ := u.start("-p", "remember this", "--base-url", srv.URL(), "--model", "m")
	defer cmd.Wait()
	waitFor(t, "the request", func() bool { return srv.Requests() == 1 })
	// While the request is still unanswered, a second parley process finds the message stored.
	sessions := decode[[]struct{ ID string }](t, u.run("sessions", "--json").stdout)
	if len(sessions) != 1 {
		t.Fatalf("sessions while the request is open: %+v", sessions)
	}
	e := decode[exportJSON](t, u.run("export", sessions[0].ID, "--json").stdout)
	if len(e.Messages) != 2 || e.Messages[0].Content != "remember this" || e.Messages[1].Status != "running" {
		t.Fatalf("stored while the request is open: %+v", e.Messages)
	}
}

// hostileStream is a reply carrying a clipboard write, title changes and colours.
const hostileStream = `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}` + "\n\n" +
	`data: {"choices":[{"index":0,"delta":{"content":"safe \u001b]52;c;cm0gLXJmIH4=\u0007text \u001b]0;pwned\u0007and \u001b[31mred\u001b[0m"}}]}` + "\n\n" +
	// A title change cut across two deltas.
	`data: {"choices":[{"index":0,"delta":{"content":" then \u001b]0;pw"}}]}` + "\n\n" +
	`data: {"choices":[{"index":0,"delta":{"content":"ned-again\u0007done"}}]}` + "\n\n" +
	`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
	"data: [DONE]\n\n"

func TestControlSequencesNeutralisedOnlyOnATerminal(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	srv.Push(demo.Fault{Stream: hostileStream}, demo.Fault{Stream: hostileStream})
	u := newUser(t)

	piped := u.run("-p", "hi", "--base-url", srv.URL(), "--model", "m")
	if !strings.Contains(piped.stdout, "\x1b]52;c;") || !strings.Contains(piped.stdout, "\x1b[31m") {
		t.Fatalf("to a pipe the raw text must pass unchanged, got %q", piped.stdout)
	}

	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) is not installed: cannot give parley a terminal")
	}
	cmd := exec.Command("script", "-qfec", parleyBin+" -p hi --base-url "+srv.URL()+" --model m", "/dev/null")
	cmd.Env = u.env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	s := string(out)
	if !strings.Contains(s, "safe ") || !strings.Contains(s, "red") {
		t.Fatalf("the visible text is missing: %q", s)
	}
	if strings.Contains(s, "ned-again") || !strings.Contains(s, "then done") {
		t.Errorf("a sequence split across deltas leaked its text: %q", s)
	}
	for _, seq := range []string{"\x1b]52", "\x1b]0;", "\x1b[31m"} {
		if strings.Contains(s, seq) {
			t.Errorf("terminal output carries %q: %q", seq, s)
		}
	}
}

func TestAPIKeyNeverStored(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	const key = "sk-parley-test-secret-4242"
	u := newUser(t, "PARLEY_TEST_KEY="+key)
	r := u.run("-p", "hello", "--base-url", srv.URL(), "--model", "m", "--api-key-env", "PARLEY_TEST_KEY", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := srv.Received()[0].Header.Get("Authorization"); got != "Bearer "+key {
		t.Fatalf("the key was not sent: Authorization %q", got)
	}
	out := decode[printJSON](t, r.stdout)
	exp := u.run("export", out.SessionID, "--json")
	files, err := filepath.Glob(filepath.Join(u.home, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no files under PARLEY_HOME: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err == nil && strings.Contains(string(b), key) {
			t.Errorf("%s contains the API key", f)
		}
	}
	if strings.Contains(r.stdout+r.stderr+exp.stdout, key) {
		t.Error("the API key was printed")
	}
}

// Print mode buffers its output for speed, yet a pipe still receives the reply as it streams,
// not all at once at the end.
func TestPrintModeStreamsToAPipeAsTextArrives(t *testing.T) {
	srv := demotest.Start(t, demo.Options{Pace: 20 * time.Millisecond, Tokens: 150})
	u := newUser(t)
	cmd, stdout, _ := u.start("-p", "go", "--base-url", srv.URL(), "--model", "m")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// 150 chunks at 20 ms take 3 s: text must show long before the end.
	waitFor(t, "the first words on the pipe", func() bool { return stdout.String() != "" })
	early := stdout.String()
	select {
	case err := <-done:
		t.Fatalf("the reply reached the pipe only when parley exited (%v)", err)
	default:
	}
	if err := <-done; err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("exit %d", ee.ExitCode())
		}
		t.Fatal(err)
	}
	if all := stdout.String(); !strings.HasPrefix(all, early) || len(all) <= len(early) {
		t.Fatalf("early text %q is not the start of the reply %q", early, all)
	}
}

// reasoningJSON is the part of print mode's --json object about thinking.
type reasoningJSON struct {
	printJSON
	Reasoning    string `json:"reasoning"`
	FinishReason string `json:"finish_reason"`
}

// profileUser is a user whose config.toml has one profile, "local", for srv and model, with
// the extra settings given.
func profileUser(t *testing.T, srv *demo.Server, model string, settings ...string) *user {
	t.Helper()
	u := newUser(t)
	cfg := fmt.Sprintf("profile = \"local\"\n[profiles.local]\nbase_url = %q\nmodel = %q\n%s\n",
		srv.URL(), model, strings.Join(settings, "\n"))
	u.writeConfig(cfg)
	return u
}

// Six seconds of thinking, in each shape servers send it, against a three-second first-delta
// deadline: one request, the answer alone as the text, the thinking apart.
func TestPrintModeThinkingInEveryShape(t *testing.T) {
	for _, shape := range []demo.ThinkShape{demo.ThinkReasoningContent, demo.ThinkReasoning, demo.ThinkTags, demo.ThinkBare} {
		t.Run(string(shape), func(t *testing.T) {
			t.Parallel()
			srv := demotest.Start(t, demo.Options{Pace: time.Millisecond})
			srv.Push(demo.Fault{Think: shape, ThinkFor: 6 * time.Second})
			u := profileUser(t, srv, "deepseek-r1:14b", `first_delta_timeout = "3s"`)
			r := u.run("-p", "what is tcp", "--json")
			res := decode[reasoningJSON](t, r.stdout)
			if r.code != 0 || srv.Requests() != 1 {
				t.Fatalf("exit %d after %d requests: %s", r.code, srv.Requests(), r.stderr)
			}
			if res.Text == "" || strings.Contains(res.Text, "think>") || strings.Contains(res.Text, "The user asks") {
				t.Errorf("text is not the answer alone: %q", res.Text)
			}
			if !strings.HasPrefix(strings.TrimSpace(res.Reasoning), "The user asks") || strings.Contains(res.Reasoning, "think>") {
				t.Errorf("reasoning %q", res.Reasoning)
			}
			// The next request of the session carries the answer, and no thinking.
			u.run("-c", "-p", "and udp?")
			last := srv.Received()[1].Messages
			if len(last) != 3 || last[1].Content != res.Text || strings.Contains(string(srv.Received()[1].Body), "The user asks") {
				t.Errorf("the next request carried %+v", last)
			}
		})
	}
}

// A reasoning model may think in silence for longer than 90 s: its deadline is ten minutes,
// and a five-second silence after the role chunk is waited for.
func TestPrintModeSilentThinkerIsWaitedFor(t *testing.T) {
	srv := demotest.Start(t, demo.Options{Pace: time.Millisecond})
	srv.Push(demo.Fault{Think: demo.ThinkSilent, ThinkFor: 5 * time.Second})
	u := profileUser(t, srv, "house-model", "reasoning = true")
	if r := u.run("-p", "hard question"); r.code != 0 || srv.Requests() != 1 || r.stdout == "" {
		t.Fatalf("exit %d after %d requests: %s", r.code, srv.Requests(), r.stderr)
	}
}

// A connection dropped while the model thinks: no second request, a retryable failure, the
// thinking kept.
func TestPrintModeDropWhileThinking(t *testing.T) {
	srv := demotest.Start(t, demo.Options{Pace: time.Millisecond})
	srv.Push(demo.Fault{Think: demo.ThinkReasoningContent, CutAfter: 5})
	u := profileUser(t, srv, "deepseek-reasoner")
	r := u.run("-p", "what is tcp", "--json")
	res := decode[reasoningJSON](t, r.stdout)
	if r.code != 3 || srv.Requests() != 1 || res.Retry == nil || !res.Retry.Retryable || res.Reasoning == "" {
		t.Fatalf("exit %d after %d requests: %+v", r.code, srv.Requests(), res)
	}
	exp := u.run("export", res.SessionID, "--markdown")
	if !strings.Contains(exp.stdout, strings.TrimSpace(res.Reasoning)) {
		t.Errorf("the thinking is not in the export:\n%s", exp.stdout)
	}
}

// A stream that stalls after three words ends within the idle timeout as a retryable
// timeout, the three words kept.
func TestPrintModeStallAfterTheFirstWords(t *testing.T) {
	srv := demotest.Start(t, demo.Options{Pace: time.Millisecond})
	srv.Push(demo.Fault{StallAfter: 3})
	u := profileUser(t, srv, "m", `stream_idle_timeout = "2s"`)
	start := time.Now()
	r := u.run("-p", "what is tcp", "--json")
	took := time.Since(start)
	res := decode[reasoningJSON](t, r.stdout)
	if r.code != 3 || res.Retry == nil || res.Retry.RetryClass != "timeout" || srv.Requests() != 1 {
		t.Fatalf("exit %d after %d requests: %+v %s", r.code, srv.Requests(), res.Retry, r.stderr)
	}
	if took > 4*time.Second {
		t.Errorf("took %s", took)
	}
	if res.Text == "" || len(strings.Fields(res.Text)) > 3 {
		t.Errorf("kept %q; want the three words", res.Text)
	}
}

// A reply cut at the token limit says so; with no answer, that the thinking used it up.
func TestPrintModeLengthSaysSo(t *testing.T) {
	srv := demotest.Start(t, demo.Options{Pace: time.Millisecond})
	srv.Push(demo.Fault{Finish: "length", MaxAnswer: 16}, demo.Fault{Think: demo.ThinkReasoningContent, ThinkOnly: true, Finish: "length"})
	u := profileUser(t, srv, "deepseek-reasoner", "max_tokens = 64")
	r := u.run("-p", "long answer please", "--json")
	if res := decode[reasoningJSON](t, r.stdout); r.code != 0 || res.FinishReason != "length" ||
		!strings.Contains(r.stderr, "stopped at the token limit\n") {
		t.Errorf("exit %d, %+v, stderr %q", r.code, res, r.stderr)
	}
	r = u.run("-p", "think hard", "--json")
	if res := decode[reasoningJSON](t, r.stdout); res.Text != "" || res.Reasoning == "" ||
		!strings.Contains(r.stderr, "stopped at the token limit while thinking — no answer") {
		t.Errorf("exit %d, %+v, stderr %q", r.code, res, r.stderr)
	}
	if body := string(srv.Received()[0].Body); !strings.Contains(body, `"max_tokens":64`) {
		t.Errorf("max_tokens not sent: %s", body)
	}
}

// --show-reasoning writes the thinking to stderr; stdout keeps the answer alone.
func TestPrintModeShowReasoning(t *testing.T) {
	srv := demotest.Start(t, demo.Options{Pace: time.Millisecond})
	srv.Push(demo.Fault{Think: demo.ThinkReasoning, ThinkText: "Recall the handshake first."})
	u := profileUser(t, srv, "m")
	r := u.run("-p", "what is tcp", "--show-reasoning")
	if r.code != 0 || !strings.Contains(r.stderr, "Recall the handshake first.") || strings.Contains(r.stdout, "Recall") {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}
