package main

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"parley/agent/demo"
	"parley/agent/demo/demotest"
)

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
