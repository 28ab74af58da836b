package cli

import (
	"flag"
	"strings"
	"testing"
)

// parley's flags, checked against each other and against what stdin is.

// The spend flags are parsed here; the config file's limits and prices are checked by
// internal/config's tests, and their exit status by TestBadConfigurationExits2AndChangesNothing.
func TestSpendFlagsAreChecked(t *testing.T) {
	t.Parallel()
	u := newUser(t)
	for _, args := range [][]string{
		{"-p", "hi", "--demo", "--max-spend", "lots"},
		{"-p", "hi", "--demo", "--max-spend", "-1"},
		{"-p", "hi", "--demo", "--max-tokens-session", "1.5"},
	} {
		if r := u.run(args...); r.code != 2 || !strings.Contains(r.stderr, "max-") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}

// A flag's bad value is named for what the flag takes: --wait is a duration, though it may
// stand alone.
func TestAFlagsBadValueNamesItsKind(t *testing.T) {
	t.Parallel()
	u := newUser(t)
	r := u.run("-p", "hi", "--demo", "--wait=-5s")
	if want := `parley: invalid value "-5s" for --wait: want a total wait such as 20s, 10m or 2h (see parley -h)` + "\n"; r.code != 2 || r.stderr != want {
		t.Fatalf("exit %d, stderr %q; want %q", r.code, r.stderr, want)
	}
}

// --theme takes light, dark or auto, and says so of anything else.
func TestThemeFlagIsChecked(t *testing.T) {
	t.Parallel()
	u := newUser(t)
	r := u.run("-p", "hi", "--demo", "--theme", "blue")
	if want := `parley: invalid value "blue" for --theme: want light, dark or auto (see parley -h)` + "\n"; r.code != 2 || r.stderr != want {
		t.Fatalf("exit %d, stderr %q; want %q", r.code, r.stderr, want)
	}
	if r := u.run("-p", "hi", "--demo", "--theme", "light"); r.code != 0 {
		t.Fatalf("--theme light: exit %d, stderr %q", r.code, r.stderr)
	}
}

// Help names each long flag as parley takes it, with two dashes.
func TestHelpShowsLongFlagsWithTwoDashes(t *testing.T) {
	t.Parallel()
	r := newUser(t).run("-h")
	for _, want := range []string{"\n  --wait MAX", "\n  --timeout DURATION", "\n  -p PROMPT", "\n  --json"} {
		if !strings.Contains(r.stdout+r.stderr, want) {
			t.Errorf("help has no %q:\n%s", want, r.stdout+r.stderr)
		}
	}
	if strings.Contains(r.stdout+r.stderr, "\n  -wait") {
		t.Errorf("help shows -wait")
	}
}

func TestEmptyPromptIsAUsageError(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	for _, c := range []struct {
		stdin string
		args  []string
	}{
		{"\n", nil}, // echo "" | parley
		{" \t\n\n", nil},
		{"", []string{"-p", ""}},
		{"", []string{"-p", "  \n"}},
	} {
		r := u.pipe(c.stdin, append([]string{"--base-url", srv.URL(), "--model", "m"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, "empty prompt") {
			t.Errorf("stdin %q, args %q: exit %d, stderr %q; want exit 2", c.stdin, c.args, r.code, r.stderr)
		}
	}
	if srv.Requests() != 0 || strings.TrimSpace(u.run("sessions").stdout) != "" {
		t.Fatalf("%d requests, sessions %q: an empty prompt sends and stores nothing", srv.Requests(), u.run("sessions").stdout)
	}
}

// Every flag that only print mode takes says so in its usage, and is refused on a terminal
// without -p: the chat screen would ignore it.
func TestPrintOnlyFlagsNeedAPrompt(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	// --allow-tool names a configured server: one that exits as it starts, said on stderr.
	u.writeConfig("[mcp.fs]\ncommand = [\"true\"]\n")
	values := map[string]string{"timeout": "1m", "allow-tool": "fs"}
	n := 0
	flagSet(new(options)).VisitAll(func(f *flag.Flag) {
		if f.Name == "p" || !strings.HasPrefix(f.Usage, printModeUsage) {
			return
		}
		n++
		arg := "--" + f.Name
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
			v, ok := values[f.Name]
			if !ok {
				t.Fatalf("--%s takes a value: give this test one for it", f.Name)
			}
			arg += "=" + v
		}
		want := "parley: --" + f.Name + " is for print mode: add -p PROMPT\n"
		if r := u.onTerminal(arg); r.code != 2 || r.stderr != want {
			t.Errorf("%s on a terminal: exit %d, stderr %q; want 2, %q", arg, r.code, r.stderr, want)
		}
		// With -p it is taken.
		if r := u.onTerminal("-p", "hi", "--base-url", srv.URL(), "--model", "m", arg); r.code != 0 {
			t.Errorf("-p hi %s: exit %d, stderr %q", arg, r.code, r.stderr)
		}
	})
	if n < 6 {
		t.Fatalf("%d print-only flags; want --json, --show-reasoning, --force, --wait, --fallback and --timeout at least", n)
	}
}

// A second -p would silently replace the first, and an empty --session would open a new
// session in its place: both are refused, and nothing is sent or stored.
func TestARepeatedPromptAndAnEmptySessionAreRefused(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-p", "A", "-p", "B"}, "parley: -p is given 2 times and only one prompt is sent: give the whole prompt to one -p\n"},
		{[]string{"-p", "hi", "--session", ""}, "parley: --session is empty: give a session's ID (parley sessions lists them), or leave --session out for a new session\n"},
		{[]string{"--session="}, "parley: --session is empty: give a session's ID (parley sessions lists them), or leave --session out for a new session\n"},
	} {
		r := u.run(append(endpointFlags(srv), c.args...)...)
		if r.code != 2 || r.stderr != c.want {
			t.Errorf("%q: exit %d, stderr %q; want exit 2, %q", c.args, r.code, r.stderr, c.want)
		}
	}
	if srv.Requests() != 0 || strings.TrimSpace(u.run("sessions").stdout) != "" {
		t.Fatalf("%d requests, sessions %q: a refused command sends and stores nothing", srv.Requests(), u.run("sessions").stdout)
	}
}
