package e2e

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	_ "modernc.org/sqlite"

	"parley/internal/budget"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
	"parley/internal/testenv"
)

// What only processes of their own show: the exit statuses as a shell sees them, many
// parleys sharing one database and one retry budget, and a real terminal.

// The exit statuses of docs/print-mode.md's table, from the built binary: 0 succeeded, 1 failed and not
// retryable, 2 a usage error, 3 failed and retryable (130, interrupted, in signal_test.go).
func TestExitStatuses(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{})
	u := newUser(t)
	endpoint := []string{"--base-url", srv.URL(), "--model", "m"}
	for _, c := range []struct {
		name  string
		fault []demo.Fault
		args  []string
		code  int
	}{
		{name: "a reply", args: []string{"-p", "hi"}, code: 0},
		{name: "-h", args: []string{"-h"}, code: 0},
		{name: "a bad key", fault: []demo.Fault{demo.BadKey()}, args: []string{"-p", "hi"}, code: 1},
		{name: "an unknown flag", args: []string{"--colour"}, code: 2},
		{name: "an empty prompt", args: []string{"-p", " "}, code: 2},
		{name: "overloaded", fault: []demo.Fault{demo.Overloaded(), demo.Overloaded(), demo.Overloaded()}, args: []string{"-p", "hi"}, code: 3},
	} {
		srv.Push(c.fault...)
		if r := u.run(append(c.args, endpoint...)...); r.code != c.code {
			t.Errorf("%s: exit %d, want %d; stderr %q", c.name, r.code, c.code, r.stderr)
		}
	}
}

// Twenty scripts into an outage make twenty first attempts and the shared budget's twelve
// retries, not sixty; the database they share is whole afterwards.
func TestRetryBudgetAcrossProcesses(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{}, demo.Times(100, demo.Overloaded())...)
	u := newUser(t)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u.run("-p", fmt.Sprintf("file %d", i), "--base-url", srv.URL(), "--model", "m")
		}()
	}
	wg.Wait()
	n := 0
	for _, r := range srv.Received() {
		if r.Time.Sub(start) < time.Minute {
			n++
		}
	}
	t.Logf("%d requests from 20 processes in %s", n, time.Since(start).Round(time.Millisecond))
	if n > 34 || n < 20 {
		t.Errorf("%d requests within a minute; want 20 first attempts and at most the budget's 12 retries (+2 slack)", n)
	}
	db, err := sql.Open("sqlite", filepath.Join(u.home, "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ok string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Errorf("integrity_check: %q, %v", ok, err)
	}
	var runs int
	db.QueryRow("SELECT count(*) FROM runs WHERE status = 'failed'").Scan(&runs)
	if runs != 20 {
		t.Errorf("%d failed runs stored, want 20", runs)
	}
}

// The budget is the machine's, not the history's: twenty scripts into an outage, each with a
// PARLEY_HOME of its own (CI jobs, containers sharing a user), make twenty first attempts and
// one budget's twelve retries, not three requests each.
func TestRetryBudgetAcrossHomes(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{}, demo.Times(100, demo.Overloaded())...)
	runtime := t.TempDir()
	var wg sync.WaitGroup
	for i := range 20 {
		u := newUser(t, "XDG_RUNTIME_DIR="+runtime)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := u.run("-p", fmt.Sprintf("file %d", i), "--base-url", srv.URL(), "--model", "m"); r.code != 3 {
				t.Errorf("run %d: exit %d, want 3; stderr %q", i, r.code, r.stderr)
			}
		}()
	}
	wg.Wait()
	if n := len(srv.Received()); n > 32 || n < 20 {
		t.Errorf("%d requests from 20 homes; want 20 first attempts and at most the budget's 12 retries", n)
	}
	fi, err := os.Stat(filepath.Join(runtime, "parley", budget.FileName))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the budget's file: %v, %v; want it there, 0600", fi, err)
	}
}

func TestControlSequencesNeutralisedOnARealTerminal(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{}, demo.Fault{Stream: demotest.HostileStream}, demo.Fault{Stream: demotest.HostileStream})
	u := newUser(t)

	piped := u.run("-p", "hi", "--base-url", srv.URL(), "--model", "m")
	if !strings.Contains(piped.stdout, "\x1b]52;c;") || !strings.Contains(piped.stdout, "\x1b[31m") {
		t.Fatalf("to a pipe the raw text must pass unchanged, got %q", piped.stdout)
	}

	testenv.Tool(t, "script", "apt-get install bsdutils")
	cmd := exec.Command("script", "-qfec", u.bin+" -p hi --base-url "+srv.URL()+" --model m", "/dev/null")
	cmd.Env = u.env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	// On a terminal the reply's markdown is rendered: the text is read without its styles.
	demotest.CheckNeutralised(t, string(out), ansi.Strip(string(out)))
}
