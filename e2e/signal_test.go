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

// ctrl+c in the shell parley runs in: SIGINT stops a reply, a Tier 1 wait and --wait's
// countdown at once, exit 130, and nothing more is sent.

func TestSIGINTWhileStreamingCancels(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{Pace: 20 * time.Millisecond})
	u := newUser(t)
	cmd, stdout, _ := u.start("-p", "tell me about retries", "--base-url", srv.URL(), "--model", "m", "--json")
	chattest.WaitFor(t, "the request", func() bool { return srv.Requests() == 1 })
	// Stop it once some of the reply is stored: the cancelled run must keep it.
	chattest.WaitFor(t, "the first words stored", func() bool {
		list := decode[[]struct{ ID string }](t, u.run("sessions", "--json").stdout)
		if len(list) != 1 {
			return false
		}
		e := decode[exportJSON](t, u.run("export", list[0].ID, "--json").stdout)
		return len(e.Messages) == 2 && e.Messages[1].Content != ""
	})
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

func TestSIGINTDuringATier1Wait(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{}, demo.Fault{Status: 429, Header: map[string]string{"Retry-After": "20"}, Body: `{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}`})
	u := newUser(t)
	cmd, _, stderr := u.start("-p", "hello", "--base-url", srv.URL(), "--model", "m")
	chattest.WaitFor(t, "the Tier 1 wait", func() bool { return strings.Contains(stderr.String(), "reconnecting") })
	interrupt(t, cmd) // parley has exited: the count now is all it ever sent
	if srv.Requests() != 1 {
		t.Fatalf("%d requests, want 1: nothing more after SIGINT", srv.Requests())
	}
}

func TestSIGINTDuringAWait(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{}, demo.Times(10, demo.Overloaded())...)
	cmd, _, stderr := newUser(t).start("-p", "hello", "--base-url", srv.URL(), "--model", "m", "--wait")
	chattest.WaitFor(t, "the --wait countdown", func() bool { return strings.Contains(stderr.String(), "retrying in") })
	before := srv.Requests()
	interrupt(t, cmd) // parley has exited: the count now is all it ever sent
	if srv.Requests() != before {
		t.Errorf("%d requests after SIGINT", srv.Requests()-before)
	}
}

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
