package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"parley/internal/demo"
	"parley/internal/demo/demotest"
	"parley/internal/testenv"
)

// hostile is what a name or a text may hold that must never reach a terminal as it is: a
// title set (OSC 0), a clipboard write (OSC 52), the screen cleared (CSI 2J), a C1 CSI as a
// code point and a DCS, then the word that names it.
const hostile = "\x1b]0;pwned\x07\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\u009b31m\x1bPqdcs\x1b\\evil"

// The built binary on a real terminal (script(1) gives it a pty for stdin, stdout and
// stderr): model ids, a pasted failure, -f paths, typed names and a stored session holding
// hostile controls reach the terminal as text, named, and none of the controls does.
func TestEveryExitToARealTerminalIsNeutral(t *testing.T) {
	t.Parallel()
	u := newUser(t)
	testenv.Tool(t, "script", "apt-get install bsdutils")
	models := demotest.Start(t, demo.Options{Model: hostile + "-a", MoreModels: []string{"b", "c"}})
	srv := demotest.Start(t, demo.Options{}, demo.Fault{Stream: demotest.HostileStream})
	stored := decode[printJSON](t, u.run("-p", hostile, "--base-url", srv.URL(), "--model", "m", "--json").stdout)

	dir := t.TempDir()
	missing := filepath.Join(dir, hostile+".txt")
	binary := filepath.Join(dir, "bin"+hostile)
	pasted := filepath.Join(dir, "pasted.txt")
	os.WriteFile(binary, []byte("\x00\x01\x02\xff"), 0o600)
	os.WriteFile(pasted, []byte("HTTP/1.1 502 Bad Gateway\nContent-Type: text/plain\n\n"+hostile+" upstream"), 0o600)

	cases := []struct {
		name string
		// command is the shell's command line: $P is parley, $H the hostile string, $F a path.
		command, path string
		names         string
	}{
		{"models listed", `"$P" -p hi --base-url ` + models.URL(), "", strconv.Quote(hostile + "-a")},
		{"classify", `"$P" classify "$F"`, pasted, "evil upstream"},
		{"-f missing", `"$P" -p hi --demo -f "$F"`, missing, strconv.Quote(missing)},
		{"-f binary", `"$P" -p hi --demo -f "$F"`, binary, strconv.Quote(binary)},
		{"profile", `"$P" -p hi --profile "$H"`, "", "[profiles." + strconv.Quote(hostile) + "]"},
		{"role", `"$P" -p hi --demo --role "$H"`, "", "[roles." + strconv.Quote(hostile) + "]"},
		{"unknown flag", `"$P" -p hi "--$H"`, "", `"-\x1b]0;pwned\a\x1b]52;c;cm0gLXJmIH4"`},
		{"session", `"$P" export "$H"`, "", strconv.Quote(hostile)},
		{"export --json", `"$P" export ` + stored.SessionID + ` --json`, "", `\u001b]0;pwned\u0007\u001b]52;c;cm0gLXJmIH4=\u0007\u001b[2J\u009b31m`},
		{"export --markdown", `"$P" export ` + stored.SessionID + ` --markdown`, "", "evil"},
	}
	for _, c := range cases {
		cmd := exec.Command("script", "-qec", c.command, "/dev/null")
		cmd.Env = append(u.env, "P="+u.bin, "H="+hostile, "F="+c.path)
		out, _ := cmd.Output() // the exit status is the command's: what matters is what it wrote
		// The terminal writes each line break as \r\n.
		shown := strings.ReplaceAll(string(out), "\r\n", "\n")
		for i := 0; i < len(shown); {
			r, size := utf8.DecodeRuneInString(shown[i:])
			if (r == utf8.RuneError && size == 1) || (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
				t.Errorf("%s: the terminal was given %q at %d: %q", c.name, shown[i:i+size], i, shown)
				break
			}
			i += size
		}
		if !strings.Contains(shown, c.names) {
			t.Errorf("%s: the terminal does not show %s: %q", c.name, c.names, shown)
		}
	}
}
