package e2e

import (
	"strings"
	"testing"
	"time"

	"parley/internal/demo"
)

// Pastes that arrive as keys: tmux's paste-buffer without -p sends no bracketed paste, only the
// text with each line ended by a carriage return, as many terminals do.

func TestTmuxAPasteWithoutBracketsIsOneMessage(t *testing.T) {
	p := newPane(t, "m", demo.Options{})
	p.start(100, 30, nil)
	lines := []string{"please review these lines:", "alpha beta", "", "gamma delta", "the last line"}
	p.tmux("set-buffer", "-b", "k25", strings.Join(lines, "\n"))
	p.tmux("paste-buffer", "-b", "k25", "-t", "parley")
	p.waitScreen("the last line")
	p.quiet(time.Second)
	p.requests(0)
	p.key("Enter")
	p.waitRequests(1)
	got := p.srv.Received()[0].Messages
	if last := got[len(got)-1].Content; last != strings.Join(lines, "\n") {
		t.Fatalf("sent %q, want the paste whole", last)
	}
}
