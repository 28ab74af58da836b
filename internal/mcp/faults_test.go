package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/internal/chat/chattest"
	"parley/internal/mcp"
)

func TestNothingStartsUntilUsed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile, otherPidFile := filepath.Join(dir, "pid"), filepath.Join(dir, "other")
	h, _ := open(t, testServer("lazy", pidFile), testServer("other", otherPidFile))
	// Another server, started and running, is the barrier: one New started would have had
	// as long to write its process id.
	if _, err := h.Tools(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	pid(t, otherPidFile)
	if _, err := os.Stat(pidFile); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the server was started by New: %v", err)
	}
	if st, err := h.State("lazy"); st != mcp.NotStarted || err != nil {
		t.Fatalf("State = %v, %v; want not started", st, err)
	}
	if _, err := h.Tools(context.Background(), "lazy"); err != nil {
		t.Fatal(err)
	}
	pid(t, pidFile)
	if st, _ := h.State("lazy"); st != mcp.Running {
		t.Fatalf("State = %v after Tools; want running", st)
	}
}

func TestCommandNotFound(t *testing.T) {
	t.Parallel()
	h, _ := open(t, mcp.Server{Name: "fs", Command: []string{"npx-typo", "-y", "@modelcontextprotocol/server-filesystem", "/tmp"}})
	_, err := h.Tools(context.Background(), "fs")
	want := `mcp server "fs": command "npx-typo" not found: check [mcp.fs] command in config.toml`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	if st, stErr := h.State("fs"); st != mcp.Stopped || stErr.Error() != want {
		t.Fatalf("State = %v, %v", st, stErr)
	}
}

func TestExitAtStartSaysWhyFromStderr(t *testing.T) {
	t.Parallel()
	script := `echo "Warning: cannot read /home/me/nots, skipping" >&2
echo "Error: none of the directories given can be read" >&2
echo "Node.js v20.20.2" >&2
exit 3`
	h, log := open(t, mcp.Server{Name: "notes", Command: []string{"sh", "-c", script}})
	_, _, err := within(t, 10*time.Second, func() (any, error) { return h.Tools(context.Background(), "notes") })
	want := `mcp server "notes": exited as it started (exit status 3, stderr: "Error: none of the directories given can be read"): check [mcp.notes] command in config.toml`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	for _, line := range []string{"Warning: cannot read", "Node.js v20.20.2"} {
		if !strings.Contains(log.String(), line) {
			t.Errorf("the log lacks the server's stderr line %q:\n%s", line, log)
		}
	}
}

// A server that floods its stderr fills parley.log only up to a bound: the first part is
// kept, the rest counted, and the account of how it ended still reads its last lines.
func TestAFloodOfStderrIsCappedInTheLog(t *testing.T) {
	t.Parallel()
	script := `yes "noise from the server" | head -n 250000 >&2
echo "Error: out of patience" >&2
exit 3`
	h, log := open(t, mcp.Server{Name: "loud", Command: []string{"sh", "-c", script}})
	_, _, err := within(t, 20*time.Second, func() (any, error) { return h.Tools(context.Background(), "loud") })
	if err == nil || !strings.Contains(err.Error(), `stderr: "Error: out of patience"`) {
		t.Fatalf("err = %v", err)
	}
	text := log.String()
	if len(text) > 2*mcp.MaxStderrLogged {
		t.Errorf("the log holds %d bytes of a 5.5 MB stderr", len(text))
	}
	if !strings.Contains(text, "noise from the server") {
		t.Error("the log lacks the first part of stderr")
	}
	// 250 000 lines of noise and the last line, less what was logged.
	noise := len("noise from the server\n")
	logged := strings.Count(text, `text="noise from the server"`) * noise
	if want := fmt.Sprintf(`msg="mcp server stderr dropped past the log's bound" mcp_server=loud bytes=%d`, 250000*noise+len("Error: out of patience\n")-logged); !strings.Contains(text, want) {
		t.Errorf("the log lacks %q:\n%s", want, text[max(0, len(text)-500):])
	}
}

func TestHangAtStartHitsTheStartTimeout(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	srv := mcp.Server{Name: "mute", Command: []string{"sh", "-c", `echo $$ > "$PIDFILE"; exec sleep 60`},
		Env: map[string]string{"PIDFILE": pidFile}, StartTimeout: 300 * time.Millisecond}
	h, _ := open(t, srv)
	_, took, err := within(t, 10*time.Second, func() (any, error) { return h.Tools(context.Background(), "mute") })
	want := `mcp server "mute": no answer to MCP's initialize within 300ms: is "sh" an MCP server on stdio? check [mcp.mute] command in config.toml`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	t.Logf("the start gave up after %v", took)
	sleeper := pid(t, pidFile)
	chattest.WaitFor(t, "the hung server killed and waited for", func() bool { return gone(sleeper) })

	// Later uses say so again, without starting it again, until Start is asked.
	if err := os.Remove(pidFile); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Call(context.Background(), "mute", "x", nil); err == nil || err.Error() != want {
		t.Fatalf("a later use: %v", err)
	}
	if _, err := os.Stat(pidFile); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a later use started the server again")
	}
	if err := h.Start(context.Background(), "mute"); err == nil || err.Error() != want {
		t.Fatalf("Start: %v", err)
	}
	pid(t, pidFile)
}

func TestExitMidCall(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	h, _ := open(t, testServer("crash", pidFile))
	ctx := context.Background()
	if res, err := h.Call(ctx, "crash", "echo", []byte(`{"text":"before"}`)); err != nil || res.Text != "echo: before" {
		t.Fatalf("echo: %+v, %v", res, err)
	}
	first := pid(t, pidFile)

	_, took, err := within(t, 10*time.Second, func() (mcp.Result, error) { return h.Call(ctx, "crash", "die", nil) })
	want := `mcp server "crash": stopped during the call to "die" (exit status 1, stderr: "dying on purpose"); whether the tool did anything is not known`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	t.Logf("the call failed %v after it was made", took)
	if !gone(first) {
		t.Error("the server's process was not waited for")
	}

	// The next use says the server stopped, and does not start it again.
	next := `mcp server "crash": stopped (exit status 1, stderr: "dying on purpose"); it is not started again until asked`
	if _, err := h.Call(ctx, "crash", "echo", []byte(`{"text":"after"}`)); err == nil || err.Error() != next {
		t.Fatalf("next use: %v\nwant %s", err, next)
	}
	if st, err := h.State("crash"); st != mcp.Stopped || err.Error() != next {
		t.Fatalf("State = %v, %v", st, err)
	}

	// Start, asked, starts it again.
	if err := h.Start(ctx, "crash"); err != nil {
		t.Fatal(err)
	}
	if res, err := h.Call(ctx, "crash", "echo", []byte(`{"text":"again"}`)); err != nil || res.Text != "echo: again" {
		t.Fatalf("after Start: %+v, %v", res, err)
	}
	if second := pid(t, pidFile); second == first {
		t.Errorf("Start did not start a new process")
	}
}

func TestCallTimeoutCancelsOnTheServer(t *testing.T) {
	t.Parallel()
	srv := testServer("slow", "")
	srv.Timeout = 300 * time.Millisecond
	h, log := open(t, srv)
	_, _, err := within(t, 10*time.Second, func() (mcp.Result, error) { return h.Call(context.Background(), "slow", "wait", nil) })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v; want a timeout", err)
	}
	want := `mcp server "slow": the call to "wait" got no answer within 300ms, so it was cancelled: raise timeout in [mcp.slow] if it needs longer`
	if !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	chattest.WaitFor(t, "the server to see the cancellation", func() bool {
		return strings.Contains(log.String(), "wait: cancelled by the client")
	})
	// The server is still up.
	if res, err := h.Call(context.Background(), "slow", "echo", []byte(`{"text":"still here"}`)); err != nil || res.Text != "echo: still here" {
		t.Fatalf("after the timeout: %+v, %v", res, err)
	}
}

func TestCancelledCallReachesTheServer(t *testing.T) {
	t.Parallel()
	h, log := open(t, testServer("go", ""))
	ctx, cancel := context.WithCancel(context.Background())
	// Cancelled once the server has the call, however long it took to start: a cancel during
	// the start is another case (the start is abandoned).
	called := make(chan error, 1)
	go func() {
		_, err := h.Call(ctx, "go", "wait", nil)
		called <- err
	}()
	chattest.WaitFor(t, "the call at the server", func() bool { return strings.Contains(log.String(), "wait: called") })
	cancel()
	_, took, err := within(t, 10*time.Second, func() (any, error) { return nil, <-called })
	if !errors.Is(err, context.Canceled) || err.Error() != `mcp server "go": the call to "wait" was cancelled: context canceled` {
		t.Fatalf("err = %v", err)
	}
	t.Logf("the call returned %v after the cancellation", took)
	chattest.WaitFor(t, "the server to see the cancellation", func() bool {
		return strings.Contains(log.String(), "wait: cancelled by the client")
	})
}

// A server still at a call when parley quits, one that goes on after its cancellation and the
// end of its input (server-everything's long operation does), is sent SIGTERM two seconds
// after its input is closed: quitting does not wait out the SDK's 5 s.
func TestCloseDoesNotWaitOutABusyServer(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	h, log := open(t, testServer("go", pidFile))
	calling := make(chan error, 1)
	go func() {
		_, err := h.Call(context.Background(), "go", "busy", nil)
		calling <- err
	}()
	chattest.WaitFor(t, "the call at the server", func() bool { return strings.Contains(log.String(), "busy: called") })
	_, took, err := within(t, 4*time.Second, func() (any, error) { return nil, h.Close() })
	if err == nil || !strings.Contains(err.Error(), "signal: terminated") {
		t.Errorf("Close: %v; want the server's end by SIGTERM", err)
	}
	t.Logf("Close returned after %v", took)
	if err := <-calling; !errors.Is(err, context.Canceled) {
		t.Errorf("the call in flight: %v", err)
	}
	if id := pid(t, pidFile); !gone(id) {
		t.Errorf("process %d is still there after Close", id)
	}
}

func TestBadArgumentsAreNotSent(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	h, _ := open(t, testServer("go", pidFile))
	_, err := h.Call(context.Background(), "go", "echo", []byte(`{"text":"cut mid`))
	if err == nil || !strings.HasPrefix(err.Error(), `mcp server "go": tool "echo": the arguments are not a JSON object`) {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(pidFile); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("arguments that are no JSON object started the server")
	}
}

func TestUnknownServer(t *testing.T) {
	t.Parallel()
	h, _ := open(t, testServer("a", ""), testServer("b", ""))
	_, err := h.Tools(context.Background(), "c")
	want := `mcp server "c" is not configured: add [mcp.c] to config.toml (configured: a, b)`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}

func TestCloseEndsEveryServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := []string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}
	log := &chattest.Buffer{}
	h := mcp.New([]mcp.Server{testServer("a", files[0]), testServer("b", files[1]), testServer("unused", "")}, slog.New(slog.NewTextHandler(log, nil)))
	ctx := context.Background()
	for _, name := range []string{"a", "b"} {
		if _, err := h.Tools(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	// A call in flight does not hold Close up: it ends, cancelled.
	calling := make(chan error, 1)
	go func() {
		_, err := h.Call(ctx, "a", "wait", nil)
		calling <- err
	}()
	chattest.WaitFor(t, "the call at the server", func() bool { return strings.Contains(log.String(), "wait: called") })
	if _, _, err := within(t, 15*time.Second, func() (any, error) { return nil, h.Close() }); err != nil {
		t.Fatal(err)
	}
	if err := <-calling; !errors.Is(err, context.Canceled) {
		t.Errorf("the call in flight: %v", err)
	}
	for _, f := range files {
		if id := pid(t, f); !gone(id) {
			t.Errorf("process %d is still there after Close", id)
		}
	}
	if _, err := h.Tools(ctx, "a"); err == nil || err.Error() != `mcp server "a": parley closed it` {
		t.Errorf("a use after Close: %v", err)
	}
	if err := h.Start(ctx, "unused"); err == nil {
		t.Error("Start after Close started a server")
	}
}
