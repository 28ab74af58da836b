package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/history/historytest"
	"parley/internal/chat"
	"parley/internal/chat/chattest"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// Every test here runs parley in-process, through Run, as a user at a shell would run the
// binary: a PARLEY_HOME of their own, a clean environment, and stdin a pipe unless a test
// says it is a terminal. What needs a process of its own (signals, many processes, a real
// terminal) is in e2e.

func TestMain(m *testing.M) {
	// Most runs here wait on a demo endpoint's pacing, a timeout or a lock, not on the CPU.
	chattest.WaitingParallel(4)
	os.Exit(m.Run())
}

// result is one run of parley.
type result struct {
	stdout, stderr string
	code           int
}

// user is a person at a shell: a PARLEY_HOME of their own and a clean environment.
type user struct {
	t    *testing.T
	home string
	env  map[string]string
	// clock, when set, times every run's waits instead of the real clock.
	clock chat.Clock
}

// newUser returns a user with a home of their own and env (NAME=VALUE) set. The home holds the
// database parley's first run leaves (historytest.Seed): under the race detector migrating a
// new one costs each test a fifth of a second. newFirstUser's home is empty.
func newUser(t *testing.T, env ...string) *user {
	u := newFirstUser(t, env...)
	historytest.Seed(t, u.home)
	return u
}

// newFirstUser returns a user, as newUser does, whose home parley has never run in.
func newFirstUser(t *testing.T, env ...string) *user {
	home := t.TempDir()
	u := &user{t: t, home: home, env: map[string]string{"PARLEY_HOME": home, "HOME": home}}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		u.env[k] = v
	}
	return u
}

// newServedUser returns a user, as newUser does, and a demo endpoint of their own in its
// defaults, which endpointFlags point parley at.
func newServedUser(t *testing.T, env ...string) (*user, *demo.Server) {
	t.Helper()
	return newUser(t, env...), demotest.Start(t, demo.Options{})
}

// endpointFlags are the flags that point parley at srv, asking for model "m".
func endpointFlags(srv *demo.Server) []string {
	return []string{"--base-url", srv.URL(), "--model", "m"}
}

// instantClock makes the user's runs wait on a clock on which every wait passes at once,
// reading the real time to begin with (the spend limits' day is the real one), and returns it.
func (u *user) instantClock() *chattest.Clock {
	c := chattest.NewInstant(time.Now())
	u.clock = c
	return c
}

// io returns an IO for one run of parley with stdin holding stdin.
func (u *user) io(stdin string) (ios *IO, stdout, stderr *bytes.Buffer) {
	ios, in, stdout, stderr := Test()
	in.WriteString(stdin)
	ios.Getenv = func(k string) string { return u.env[k] }
	if u.clock != nil {
		ios.Clock = u.clock
	}
	return ios, stdout, stderr
}

// run runs parley to its end with nothing on stdin.
func (u *user) run(args ...string) result {
	u.t.Helper()
	return u.pipe("", args...)
}

// pipe runs parley to its end with stdin piped in, as `printf STDIN | parley ARGS` does.
func (u *user) pipe(stdin string, args ...string) result {
	u.t.Helper()
	return u.runWith(func(*IO) {}, stdin, args...)
}

// onTerminal runs parley to its end with stdin, stdout and stderr a terminal, as typed at
// one.
func (u *user) onTerminal(args ...string) result {
	u.t.Helper()
	return u.runWith(func(ios *IO) { ios.InTerminal, ios.OutTerminal, ios.ErrTerminal = true, true, true }, "", args...)
}

// runWith runs parley to its end with stdin holding stdin, on an IO that set has changed.
func (u *user) runWith(set func(*IO), stdin string, args ...string) result {
	u.t.Helper()
	ios, stdout, stderr := u.io(stdin)
	set(ios)
	code := Run(context.Background(), args, ios)
	return result{stdout.String(), stderr.String(), code}
}

// start runs parley in the background, its output readable while it runs: done is closed
// when it has ended, and code then returns its exit status. When the test ends, parley is
// interrupted (as ctrl+c would) and waited for.
func (u *user) start(args ...string) (done <-chan struct{}, code func() int, stdout, stderr *chattest.Buffer) {
	ios, _, _ := u.io("")
	stdout, stderr = new(chattest.Buffer), new(chattest.Buffer)
	ios.Out, ios.ErrOut = stdout, stderr
	ctx, interrupt := context.WithCancel(context.Background())
	ended, exit := make(chan struct{}), 0
	go func() {
		defer close(ended)
		exit = Run(ctx, args, ios)
	}()
	u.t.Cleanup(func() {
		interrupt()
		<-ended
	})
	return ended, func() int { <-ended; return exit }, stdout, stderr
}

// writeHome writes files (path under the user's PARLEY_HOME → text).
func (u *user) writeHome(files map[string]string) {
	u.t.Helper()
	for name, text := range files {
		p := filepath.Join(u.home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			u.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			u.t.Fatal(err)
		}
	}
}

// writeConfig writes the user's config.toml.
func (u *user) writeConfig(text string) {
	u.t.Helper()
	u.writeHome(map[string]string{"config.toml": text})
}

// skipRealTime skips, under -short, a test that takes seconds of real time: it holds real
// deadlines against a server's real pace, which no manual clock can stand in for.
func skipRealTime(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("takes seconds of real time: run without -short")
	}
}

// printJSON is print mode's --json object as a user's script reads it.
type printJSON struct {
	SessionID string `json:"session_id"`
	RunID     int64  `json:"run_id"`
	Status    string `json:"status"`
	Text      string `json:"text"`
	Attempts  int    `json:"attempts"`
	Stored    *bool  `json:"stored"`
	Error     *string
	Retry     *struct {
		Retryable       bool    `json:"retryable"`
		RetryClass      string  `json:"retry_class"`
		RetryAfterUntil *string `json:"retry_after_until"`
	} `json:"retry"`
}

// decode reads s, what a run wrote as JSON, into a T.
func decode[T any](t *testing.T, s string) T {
	t.Helper()
	return chattest.DecodeJSON[T](t, s)
}

// exportJSON is `parley export --json` as a user's script reads it.
type exportJSON struct {
	Session struct {
		ID string `json:"id"`
	} `json:"session"`
	Messages []struct {
		ID         int64  `json:"id"`
		Role       string `json:"role"`
		Content    string `json:"content"`
		Status     string `json:"status"`
		RunID      *int64 `json:"run_id"`
		Superseded bool   `json:"superseded"`
		Retry      *struct {
			Retryable  bool   `json:"retryable"`
			RetryClass string `json:"retry_class"`
		} `json:"retry"`
	} `json:"messages"`
}
