package e2e

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"parley/internal/chat/chattest"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// A closed terminal and a closed pipe end print mode's run as a cancel: what was printed is
// what is stored, and the run is cancelled, not left to be found interrupted.

// pacedReply is a reply of 5000 chunks 2 ms apart: ten seconds, stopped well before its end.
var pacedReply = demo.Options{Tokens: 5000, Pace: 2 * time.Millisecond}

func TestStorageSIGHUPMidStream(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, pacedReply)
	u := newStorageUser(t, t.TempDir())
	cmd, stdout, stderr := u.start("-p", "a long story", "--base-url", srv.URL(), "--model", "m")
	chattest.WaitFor(t, "the reply to stream", func() bool { return len(stdout.String()) > 4000 })
	cmd.Process.Signal(syscall.SIGHUP)
	err := cmd.Wait()
	printed := stdout.String()
	_, msgs := u.stored()
	got := reply(t, msgs)
	t.Logf("exit %v; %d bytes printed, %d stored, %s", err, len(printed), len(got.Content), got.Status)
	if code := cmd.ProcessState.ExitCode(); code != 128+int(syscall.SIGHUP) {
		t.Errorf("exit %d, want 129; stderr %q", code, stderr.String())
	}
	if printedAs(got.Content) != printed || got.Status != "cancelled" {
		t.Errorf("stored %s, %d bytes; want cancelled, the %d bytes printed", got.Status, len(got.Content), len(printed))
	}
}

// `parley -p … | head -c 100`: head exits after 100 bytes, the next write fails, and parley
// stops the reply there, stored cancelled, exit 141.
func TestStorageStdoutClosedByHead(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, pacedReply)
	u := newStorageUser(t, t.TempDir())
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	head := exec.Command("head", "-c", "100")
	var headOut chattest.Buffer
	head.Stdin, head.Stdout = r, &headOut
	cmd := u.command("-p", "a long story", "--base-url", srv.URL(), "--model", "m")
	var stderr chattest.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	if err := head.Start(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close() // the pipe is theirs now: head reads it, parley writes it
	w.Close()
	if err := head.Wait(); err != nil {
		t.Fatal(err)
	}
	headDone := time.Now()
	cmd.Wait()
	took := time.Since(headDone)
	_, msgs := u.stored()
	got := reply(t, msgs)
	t.Logf("exit %d %s after head; head read %d bytes; stored %s, %d bytes",
		cmd.ProcessState.ExitCode(), took.Round(time.Millisecond), len(headOut.String()), got.Status, len(got.Content))
	if code := cmd.ProcessState.ExitCode(); code != 141 {
		t.Errorf("exit %d, want 141; stderr %q", code, stderr.String())
	}
	if got.Status != "cancelled" || len(headOut.String()) != 100 || !strings.HasPrefix(got.Content, headOut.String()) {
		t.Errorf("stored %s, %d bytes; want cancelled, beginning with the 100 bytes head read", got.Status, len(got.Content))
	}
	if srv.Requests() != 1 {
		t.Errorf("%d requests, want 1", srv.Requests())
	}
}
