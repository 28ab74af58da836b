package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"parley/internal/demo"
)

// Print mode on a terminal renders the reply's markdown as the chat screen does; --raw, and a
// pipe, get it as the model wrote it.

func TestTmuxPrintModeRendersMarkdownOnATerminal(t *testing.T) {
	p := newPane(t, "m", demo.Options{})
	run := func(name string, flags ...string) string {
		cmd := fmt.Sprintf("env PARLEY_HOME=%s %s -p hello --base-url %s --model m %s; echo exit-$?; sleep 60",
			p.home, p.bin, p.srv.URL(), strings.Join(flags, " "))
		p.tmux("new-window", "-d", "-n", name, cmd)
		return p.waitWindow(name, "exit-0")
	}
	p.newSession("-d", "-s", "parley", "-x", "100", "-y", "40", "sleep 120")
	rendered := run("rendered")
	// The demo's greeting: a list, and flags as inline code.
	if strings.Contains(rendered, "`--base-url`") || strings.Contains(rendered, "- *What are the keys?*") ||
		!strings.Contains(rendered, "• What are the keys?") {
		t.Fatalf("on a terminal the markdown is not rendered:\n%s", rendered)
	}
	raw := run("raw", "--raw")
	if !strings.Contains(raw, "`--base-url`") || !strings.Contains(raw, "- *What are the keys?*") {
		t.Fatalf("--raw did not write the markdown as sent:\n%s", raw)
	}
	piped := run("piped", "| cat")
	if !strings.Contains(piped, "`--base-url`") {
		t.Fatalf("piped, the markdown is not as sent:\n%s", piped)
	}
}

// waitWindow waits until window name of the pane's session shows text, and returns what it
// shows.
func (p *pane) waitWindow(name, text string) string {
	p.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		s := p.tmux("capture-pane", "-p", "-t", "parley:"+name)
		if strings.Contains(s, text) {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out waiting for %q in window %s:\n%s", text, name, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
