package e2e

import (
	"fmt"
	"strings"
	"testing"

	"parley/internal/demo"
)

// TestTmuxCompactionAndSpend runs the parley binary in tmux against a server that rejects
// prompts above a token budget: a long session compacts once, the screen shows the note and
// no retry, and the header shows the session's spend. Then a session token limit refuses the
// next message without sending it.
func TestTmuxCompactionAndSpend(t *testing.T) {
	p := newPane(t, "gpt-4o-mini", demo.Options{})
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 20)
	for i := range 5 {
		p.parley("-c", "-p", fmt.Sprintf("question %d: %s", i, filler), "--base-url", p.srv.URL(), "--model", p.model)
	}
	p.srv.SetContext(500, demo.OverflowLlamaCpp)

	p.start(110, 30, nil, "-c")
	p.send("and in short?")
	p.waitScreen("earlier messages left out to fit the model's context")
	screen := p.waitScreen("idle")
	p.requests(7)
	if strings.Contains(screen, "retrying") || strings.Contains(screen, "reconnecting") || strings.Contains(screen, "✗") {
		t.Fatalf("a retry or a failure showed:\n%s", screen)
	}
	if header := strings.SplitN(screen, "\n", 2)[0]; !strings.Contains(header, " tok") || !strings.Contains(header, "$0.00") {
		t.Fatalf("the header shows no spend: %q", header)
	}
	p.key("C-c")

	// The same pane, a new parley: the tmux server stays up.
	p.tmux("respawn-pane", "-k", "-t", "parley", p.command(nil, "-c", "--max-tokens-session", "1000"))
	p.waitScreenNot("earlier messages left out") // the new parley has drawn its screen
	p.waitScreen("idle")
	p.send("one more")
	p.waitScreen("Spend limit reached")
	p.requests(7)
	p.key("C-c")
}
