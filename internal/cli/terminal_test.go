package cli

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// Model output reaches a pipe as the model wrote it, and a terminal with its control
// sequences neutralised (e2e runs the same through a real terminal).
func TestControlSequencesNeutralisedOnlyOnATerminal(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	srv.Push(demo.Fault{Stream: demotest.HostileStream}, demo.Fault{Stream: demotest.HostileStream})

	piped := u.run("-p", "hi", "--base-url", srv.URL(), "--model", "m")
	if !strings.Contains(piped.stdout, "\x1b]52;c;") || !strings.Contains(piped.stdout, "\x1b[31m") {
		t.Fatalf("to a pipe the raw text must pass unchanged, got %q", piped.stdout)
	}

	s := u.onTerminal("-p", "hi", "--base-url", srv.URL(), "--model", "m", "--raw").stdout
	demotest.CheckNeutralised(t, s, s)

	// Rendered as markdown (a terminal without --raw), the same text is as safe.
	srv.Push(demo.Fault{Stream: demotest.HostileStream})
	rendered := u.onTerminal("-p", "hi", "--base-url", srv.URL(), "--model", "m").stdout
	if text := ansi.Strip(rendered); !strings.Contains(text, "then done") || strings.Contains(text, "ned-again") {
		t.Errorf("rendered, the visible text is wrong: %q", text)
	}
	for _, seq := range []string{"\x1b]52", "\x1b]0;"} {
		if strings.Contains(rendered, seq) {
			t.Errorf("rendered terminal output carries %q: %q", seq, rendered)
		}
	}
}
