package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/agent/chat"
	"parley/agent/chat/chattest"
	"parley/agent/demo"
	"parley/agent/demo/demotest"
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

// Print mode reports every ending as chat.Decide decides it, as the recorder stores it and the
// chat screen shows it (their tests hold them to the same table), with the exit status the
// outcome calls for.
func TestPrintReportsEveryEndingAsDecided(t *testing.T) {
	exits := map[chat.Status]int{chat.StatusSucceeded: exitOK, chat.StatusCancelled: exitInterrupted}
	chattest.CheckEndings(t, func(t *testing.T, e chattest.Ending) chat.Outcome {
		res, code := printEvents(e.Feed(), printView{stdout: io.Discard, stderr: io.Discard, jsonOut: true})
		want, ok := exits[e.Want.Status]
		if !ok {
			want = map[bool]int{true: exitRetryable, false: exitFailed}[e.Want.Retry.Retryable]
		}
		if code != want {
			t.Errorf("exit %d, want %d", code, want)
		}
		return chat.Outcome{Status: res.Status, Retry: res.Retry}
	})
}
