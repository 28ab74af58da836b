package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// The chat screen under tmux before and after a long paste is sent: the first screen says what
// parley talks to and how to leave until the first message; the paste, sent whole, shows as
// one line in the transcript, and ctrl+o shows it in full.
func TestTmuxASentPasteStaysCollapsed(t *testing.T) {
	t.Parallel()
	p := newChatPane(t, 120, 40, nil)
	p.waitScreen("? lists the keys · ctrl+c or /quit leaves")
	lines := make([]string, 50)
	for i := range lines {
		lines[i] = fmt.Sprintf("pasted line %02d", i+1)
	}
	// Bracketed (-p), each line ended by the carriage return tmux sends for it, the last too.
	p.tmux("set-buffer", "-b", "long", strings.Join(lines, "\n")+"\n")
	p.tmux("paste-buffer", "-p", "-b", "long", "-t", "parley")
	p.waitScreen("┃ [pasted 50 lines]")
	p.key("Enter")
	p.waitRequests(1)
	s := p.waitScreen("[pasted 50 lines · ctrl+o expands]")
	if strings.Contains(s, "pasted line 10") || strings.Contains(s, "lists the keys") {
		t.Fatalf("the paste fills the transcript, or the first screen stayed:\n%s", s)
	}
	sent := p.srv.Received()[0].Messages
	if got := sent[len(sent)-1].Content; got != strings.Join(lines, "\n") {
		t.Fatalf("sent %q, want the paste whole", got)
	}
	p.waitScreen("idle")
	p.keys("C-o", "Home")
	s = p.waitScreen("pasted line 10")
	if strings.Contains(s, "[pasted 50 lines") {
		t.Fatalf("ctrl+o did not show the paste in full:\n%s", s)
	}
}
