package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/agent/demo"
)

// tmux drives a built parley in a tmux server of its own.
type tmux struct {
	t      *testing.T
	socket string
}

func (x tmux) run(args ...string) string {
	x.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", x.socket}, args...)...).CombinedOutput()
	if err != nil {
		x.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

// screen returns what the pane shows.
func (x tmux) screen() string { return x.run("capture-pane", "-p", "-t", "parley") }

// waitScreen waits until the pane shows text.
func (x tmux) waitScreen(text string) string {
	x.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		s := x.screen()
		if strings.Contains(s, text) {
			return s
		}
		if time.Now().After(deadline) {
			x.t.Fatalf("timed out waiting for %q; screen:\n%s", text, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitScreenNot waits until the pane no longer shows text.
func (x tmux) waitScreenNot(text string) {
	x.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for s := x.screen(); strings.Contains(s, text); s = x.screen() {
		if time.Now().After(deadline) {
			x.t.Fatalf("timed out waiting for %q to go; screen:\n%s", text, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestTmuxEndToEnd runs the parley binary in tmux against a local endpoint: send, stream,
// cancel, queue during a run, scroll up during streaming, resize, quit, and -c.
func TestTmuxEndToEnd(t *testing.T) {
	bin := tmuxBinary(t)
	dir := t.TempDir()
	srv, err := demo.Start(demo.Options{Pace: 10 * time.Millisecond, Tokens: 300})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	home := filepath.Join(dir, "home")
	x := tmux{t: t, socket: fmt.Sprintf("parley-test-%d", os.Getpid())}
	defer exec.Command("tmux", "-L", x.socket, "kill-server").Run()
	start := func(args string) {
		cmd := fmt.Sprintf("env PARLEY_HOME=%s %s --base-url %s --model fake-model %s; sleep 60", home, bin, srv.URL(), args)
		x.run("new-session", "-d", "-s", "parley", "-x", "100", "-y", "30", cmd)
	}

	start("")
	x.waitScreen("idle")
	x.run("send-keys", "-t", "parley", "-l", "first question")
	x.run("send-keys", "-t", "parley", "Enter")
	x.waitScreen("esc cancels")
	x.run("send-keys", "-t", "parley", "Escape")
	x.waitScreen("cancelled")

	x.run("send-keys", "-t", "parley", "-l", "second question")
	x.run("send-keys", "-t", "parley", "Enter")
	x.waitScreen("streaming")
	x.run("send-keys", "-t", "parley", "-l", "third question")
	x.run("send-keys", "-t", "parley", "Enter")
	x.waitScreen("queued: sends when the current reply ends")

	// Scrolled up during streaming, the window stays where the operator put it. First wait
	// for the reply to push the first exchange off the screen.
	x.waitScreenNot("cancelled")
	x.run("send-keys", "-t", "parley", "PPage")
	before := x.waitScreen("scrolled up")
	time.Sleep(300 * time.Millisecond)
	after := x.screen()
	if !strings.Contains(after, "streaming") {
		t.Fatalf("the run ended too soon to check scrolling:\n%s", after)
	}
	if transcriptTop(before) != transcriptTop(after) {
		t.Fatalf("window moved while scrolled up:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	x.run("send-keys", "-t", "parley", "End")

	x.run("resize-window", "-t", "parley", "-x", "60", "-y", "20")
	s := x.waitScreen("idle")
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 20 {
		t.Fatalf("%d lines after resizing to 20:\n%s", len(lines), s)
	}
	for _, l := range lines {
		if w := len([]rune(l)); w > 60 {
			t.Fatalf("line of %d columns after resizing to 60: %q", w, l)
		}
	}
	x.run("send-keys", "-t", "parley", "C-c")
	time.Sleep(200 * time.Millisecond)
	x.run("kill-session", "-t", "parley")

	// The database says what the screen said.
	env := append(os.Environ(), "PARLEY_HOME="+home)
	cmd := exec.Command(bin, "sessions")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("parley sessions: %v", err)
	}
	id := strings.Fields(string(out))[0]
	cmd = exec.Command(bin, "export", id, "--json")
	cmd.Env = env
	if out, err = cmd.Output(); err != nil {
		t.Fatalf("parley export: %v", err)
	}
	var export struct {
		Messages []struct {
			Role, Content, Status string
		}
	}
	if err := json.Unmarshal(out, &export); err != nil {
		t.Fatal(err)
	}
	var statuses []string
	for _, m := range export.Messages {
		if m.Role == "assistant" {
			statuses = append(statuses, m.Status)
		}
	}
	if strings.Join(statuses, " ") != "cancelled succeeded succeeded" {
		t.Fatalf("stored replies: %v", statuses)
	}

	// -c opens the latest session with its history.
	start("-c")
	x.waitScreen("idle")
	x.run("send-keys", "-t", "parley", "Home")
	x.waitScreen("first question\n")
	x.waitScreen("cancelled")
	x.run("send-keys", "-t", "parley", "C-c")
}

// transcriptTop returns the first transcript lines of a screen, below the header.
func transcriptTop(screen string) string {
	lines := strings.Split(screen, "\n")
	if len(lines) < 8 {
		return screen
	}
	return strings.Join(lines[1:8], "\n")
}

// builtParley is the parley binary the tmux tests drive, built once for all of them.
var builtParley struct {
	once sync.Once
	path string
	err  error
}

// tmuxBinary skips the test when tmux is missing or under -short, and otherwise returns the
// built parley binary.
func tmuxBinary(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	builtParley.once.Do(func() {
		dir, err := os.MkdirTemp("", "parley-tui-bin")
		if err != nil {
			builtParley.err = err
			return
		}
		builtParley.path = filepath.Join(dir, "parley")
		if out, err := exec.Command("go", "build", "-o", builtParley.path, "..").CombinedOutput(); err != nil {
			builtParley.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if builtParley.err != nil {
		t.Fatal(builtParley.err)
	}
	return builtParley.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtParley.path != "" {
		os.RemoveAll(filepath.Dir(builtParley.path))
	}
	os.Exit(code)
}
