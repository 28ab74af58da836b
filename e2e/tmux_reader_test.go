package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"parley/internal/demo"
	"parley/internal/mcp/mcptest"
	"parley/internal/testenv"
)

// --screen-reader as a screen reader meets it: script's record of what the built binary sent
// the terminal (tmux), through a session with a reply, a Tier 2 wait and its cancel by esc, a
// tool's question answered with the keys of today, and a reply stopped by esc. The record holds no escape sequence but
// colour, no alternate screen, no carriage return but before a line feed, no line written twice
// in a row; and each state is said in a line of words.
func TestTmuxScreenReader(t *testing.T) {
	t.Parallel()
	script := testenv.Tool(t, "script", "apt-get install util-linux")
	p := newPane(t, "parley-demo", demo.Options{})
	server, _ := mcptest.Everything(t)
	config := fmt.Sprintf("profile = \"tools\"\n[profiles.tools]\ntools = [\"everything\"]\n\n[mcp.everything]\ncommand = [%q, %q, %q]\nenv = { WIRE = %q, ENTRY = %q }\n",
		server.Command[0], server.Command[1], server.Command[2], server.Env["WIRE"], server.Env["ENTRY"])
	if err := os.WriteFile(filepath.Join(p.home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	rec := &record{t: t, path: filepath.Join(t.TempDir(), "record")}
	inner := strings.TrimSuffix(p.command(nil, "--screen-reader"), "; sleep 60")
	p.newSession("-d", "-s", "parley", "-x", "100", "-y", "30", fmt.Sprintf("%s -q -f -c %q %s; sleep 60", script, inner, rec.path))
	rec.wait("? lists the keys")

	p.send("hello there")
	rec.wait("you: hello there")
	rec.wait("parley: Hello!")
	rec.wait("reply finished in ")

	// A 503 with Retry-After: Tier 1 tries three times, then Tier 2 arms a wait, said once.
	overloaded := demo.Overloaded()
	overloaded.Header = map[string]string{"Content-Type": "application/json", "Retry-After": "1"}
	p.srv.Push(overloaded, overloaded, overloaded, overloaded, overloaded, overloaded)
	p.send("busy?")
	rec.wait("Provider overloaded — reconnecting, attempt 2/3 in 1 s, at ")
	rec.wait("reply failed: Provider overloaded")
	rec.wait("Provider overloaded — attempt 1, retrying in 2 s, at ")
	p.key("Escape")
	rec.wait("retry cancelled")
	p.srv.Reset()

	p.srv.Push(demo.AskTools(demo.Call{Function: "echo", Arguments: `{"message":"one"}`}), demo.Fault{})
	p.send("echo one")
	rec.wait(`tool everything.echo {"message":"one"} asks to run: run once, always for this tool, refuse; ←/→ choose, enter confirms, esc stops`)
	p.key("Right")
	rec.wait("chosen: run once")
	p.key("Enter")
	rec.wait("reply finished in ", "you: echo one")

	// A reply that hangs after its first words, stopped by esc.
	p.srv.Push(demo.Fault{StallAfter: 3})
	sent := p.srv.Requests()
	p.send("and then?")
	rec.wait("you: and then?")
	p.waitRequests(sent + 1)
	p.key("Escape")
	rec.wait("stopped", "you: and then?")

	p.send("/quit")
	got := rec.wait("Script done")
	t.Logf("the record:\n%s", got)
	lines := rec.check(got)
	for _, want := range []string{"you: busy?", "you: echo one", `running echo {"message":"one"}`, `tool echo {"message":"one"} · ran, 9 B`, "retry cancelled — r to regenerate"} {
		if !strings.Contains(strings.Join(lines, "\n"), want) {
			t.Errorf("no line says %q", want)
		}
	}
}

// record is script's record of a terminal session, at path.
type record struct {
	t    *testing.T
	path string
}

// wait waits until the record holds text, after the last of after if given, and returns it.
func (r *record) wait(text string, after ...string) string {
	r.t.Helper()
	deadline := time.Now().Add(40 * time.Second)
	for {
		b, _ := os.ReadFile(r.path)
		s := string(b)
		from := 0
		for _, a := range after {
			from = max(from, strings.LastIndex(s, a))
		}
		if strings.Contains(s[max(from, 0):], text) {
			return s
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("the record never said %q:\n%s", text, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// sgr is a colour sequence, the one escape sequence allowed.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// check holds what parley wrote (between script's first and last lines) to the rules of the
// mode, and returns its lines.
func (r *record) check(s string) []string {
	r.t.Helper()
	start, end := strings.Index(s, "\n"), strings.LastIndex(s, "\nScript done")
	if start < 0 || end < start {
		r.t.Fatalf("not a whole record:\n%q", s)
	}
	body := s[start+1 : end]
	if rest := sgr.ReplaceAllString(body, ""); strings.Contains(rest, "\x1b") {
		i := strings.Index(rest, "\x1b")
		r.t.Errorf("an escape sequence other than colour: %q", rest[max(0, i-40):min(len(rest), i+40)])
	}
	if strings.Contains(body, "?1049h") {
		r.t.Error("the alternate screen was entered")
	}
	if strings.Contains(strings.ReplaceAll(body, "\r\n", "\n"), "\r") {
		r.t.Error("a carriage return that is no line end: a line redrawn")
	}
	if strings.ContainsAny(body, "\b") {
		r.t.Error("a backspace: a line rewritten")
	}
	lines := strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n")
	for i := 1; i < len(lines); i++ {
		if lines[i] != "" && lines[i] == lines[i-1] {
			r.t.Errorf("line %d is written twice in a row: %q", i, lines[i])
		}
	}
	return lines
}
