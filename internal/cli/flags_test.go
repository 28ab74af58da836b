package cli

import (
	"flag"
	"strings"
	"testing"

	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// parley's flags, checked against each other and against what stdin is; the usage errors that
// are a command line and its one line of stderr are testdata/script/usage-errors.txtar.

// --theme takes light, dark or auto, and says so of anything else.
func TestThemeFlagIsChecked(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	r := u.run("-p", "hi", "--demo", "--theme", "blue")
	if want := `parley: invalid value "blue" for --theme: want light, dark or auto (see parley -h)` + "\n"; r.code != 2 || r.stderr != want {
		t.Fatalf("exit %d, stderr %q; want %q", r.code, r.stderr, want)
	}
	if r := u.run(append(endpointFlags(srv), "-p", "hi", "--theme", "light")...); r.code != 0 {
		t.Fatalf("--theme light: exit %d, stderr %q", r.code, r.stderr)
	}
}

// Every flag that only print mode takes says so in its usage, and is refused on a terminal
// without -p: the chat screen would ignore it.
func TestPrintOnlyFlagsNeedAPrompt(t *testing.T) {
	t.Parallel()
	// A reply of a few words: each flag's run renders it as a terminal shows it.
	srv := demotest.Start(t, demo.Options{Tokens: 4})
	values := map[string]string{"timeout": "1m", "allow-tool": "fs"}
	var args []string
	flagSet(new(options)).VisitAll(func(f *flag.Flag) {
		if f.Name == "p" || !strings.HasPrefix(f.Usage, printModeUsage) {
			return
		}
		arg := "--" + f.Name
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
			v, ok := values[f.Name]
			if !ok {
				t.Fatalf("--%s takes a value: give this test one for it", f.Name)
			}
			arg += "=" + v
		}
		args = append(args, arg)
	})
	for _, arg := range args {
		t.Run(arg, func(t *testing.T) {
			t.Parallel()
			u := newUser(t)
			// --allow-tool names a configured server: one that exits as it starts, said on stderr.
			u.writeConfig("[mcp.fs]\ncommand = [\"true\"]\n")
			name, _, _ := strings.Cut(strings.TrimPrefix(arg, "--"), "=")
			want := "parley: --" + name + " is for print mode: add -p PROMPT\n"
			if r := u.onTerminal(arg); r.code != 2 || r.stderr != want {
				t.Errorf("%s on a terminal: exit %d, stderr %q; want 2, %q", arg, r.code, r.stderr, want)
			}
			// With -p it is taken.
			if r := u.onTerminal("-p", "hi", "--base-url", srv.URL(), "--model", "m", arg); r.code != 0 {
				t.Errorf("-p hi %s: exit %d, stderr %q", arg, r.code, r.stderr)
			}
		})
	}
	if n := len(args); n < 6 {
		t.Fatalf("%d print-only flags; want --json, --show-reasoning, --force, --wait, --fallback and --timeout at least", n)
	}
}
