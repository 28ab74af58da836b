package e2e

import (
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
	srv := demotest.Start(t, demo.Options{})
	srv.Push(demo.Fault{Status: 429, Header: map[string]string{"Retry-After": "20"}, Body: `{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}`})
	u := newUser(t)
	cmd, _, stderr := u.start("-p", "hello", "--base-url", srv.URL(), "--model", "m")
	chattest.WaitFor(t, "the Tier 1 wait", func() bool { return strings.Contains(stderr.String(), "reconnecting") })
	interrupt(t, cmd)
	time.Sleep(300 * time.Millisecond)
	if srv.Requests() != 1 {
		t.Fatalf("%d requests, want 1: nothing more after SIGINT", srv.Requests())
	}
}

func TestSIGINTDuringAWait(t *testing.T) {
	srv := demotest.Start(t, demo.Options{})
	for range 10 {
		srv.Push(demo.Overloaded())
	}
	cmd, _, stderr := newUser(t).start("-p", "hello", "--base-url", srv.URL(), "--model", "m", "--wait")
	chattest.WaitFor(t, "the --wait countdown", func() bool { return strings.Contains(stderr.String(), "retrying in") })
	before := srv.Requests()
	interrupt(t, cmd)
	time.Sleep(2500 * time.Millisecond) // past the 2 s the countdown was at
	if srv.Requests() != before {
		t.Errorf("%d requests after SIGINT", srv.Requests()-before)
	}
}
