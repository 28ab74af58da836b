package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"parley/internal/chat/chattest"
)

// parleyBin is the parley binary, built once for every test here; "" under -short.
var parleyBin string

func TestMain(m *testing.M) {
	// Most of these tests' time is spent waiting on processes, panes and locks another
	// process holds, not on the CPU.
	chattest.WaitingParallel(4)
	if testing.Short() {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "parley-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	parleyBin = filepath.Join(dir, "parley")
	if out, err := exec.Command("go", "build", "-o", parleyBin, "..").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building parley: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// binary returns the built parley, skipping the test under -short.
func binary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the built binary: run without -short")
	}
	return parleyBin
}

// result is one run of the binary.
type result struct {
	stdout, stderr string
	code           int
}

// user is a person at a shell: a PARLEY_HOME of their own and a clean environment.
type user struct {
	t    *testing.T
	bin  string
	home string
	env  []string
}

func newUser(t *testing.T, env ...string) *user {
	home := t.TempDir()
	base := []string{"PARLEY_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH")}
	return &user{t: t, bin: binary(t), home: home, env: append(base, env...)}
}

func (u *user) command(args ...string) *exec.Cmd {
	cmd := exec.Command(u.bin, args...)
	cmd.Env = u.env
	cmd.Stdin = strings.NewReader("")
	return cmd
}

// run runs parley to its end with nothing on stdin, a pipe.
func (u *user) run(args ...string) result {
	u.t.Helper()
	cmd := u.command(args...)
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

// start starts parley in the background, its output readable while it runs.
func (u *user) start(args ...string) (cmd *exec.Cmd, stdout, stderr *chattest.Buffer) {
	u.t.Helper()
	cmd = u.command(args...)
	stdout, stderr = new(chattest.Buffer), new(chattest.Buffer)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		u.t.Fatal(err)
	}
	return cmd, stdout, stderr
}

// interrupt sends parley SIGINT, as ctrl+c in its shell would, and checks that it exits 130
// promptly: it stops at once, so five seconds (a hundred times what it takes) is a hang.
func interrupt(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	sent := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want 130", err)
	}
	if took := time.Since(sent); took > 5*time.Second {
		t.Fatalf("took %v to stop after SIGINT", took)
	}
}

// printJSON is print mode's --json object as a user's script reads it.
type printJSON struct {
	SessionID string `json:"session_id"`
	Status    string `json:"status"`
	Text      string `json:"text"`
}

// exportJSON is `parley export --json` as a user's script reads it.
type exportJSON struct {
	Messages []struct {
		Content string `json:"content"`
		Status  string `json:"status"`
	} `json:"messages"`
}

// decode reads s, what a run wrote as JSON, into a T.
func decode[T any](t *testing.T, s string) T {
	t.Helper()
	return chattest.DecodeJSON[T](t, s)
}
