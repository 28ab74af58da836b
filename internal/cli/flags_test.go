package cli

import (
	"flag"
	"strings"
	"testing"
)

// parley's flags, checked against each other and against what stdin is; the usage errors that
// are a command line and its one line of stderr are testdata/script/usage-errors.txtar.

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
