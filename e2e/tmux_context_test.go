package e2e

import (
	"fmt"
	"strings"
	"testing"

	"parley/internal/demo"
)

// The model's context window and the session's spend on the chat screen, under tmux.

// TestTmuxContextBudget runs the parley binary in tmux against an endpoint that says its window
// is 1024 tokens where llama-server says it: the header shows the window and its source, a
// conversation past it shows the leave-out line before the send, and a pinned early message is
// in the request the send makes after leaving older turns out; the pin is there on reopening.
func TestTmuxContextBudget(t *testing.T) {
	t.Parallel()
	p := newPane(t, "tiny.gguf", demo.Options{Window: 1024})
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 20)
	const turns = 6
	for i := range turns {
		p.printMode("-c", "-p", fmt.Sprintf("question %d: %s", i+1, filler))
	}
	p.start(120, 40, nil, "-c")
	screen := p.waitScreen("(1024, llama-server)")
	if header := strings.SplitN(screen, "\n", 2)[0]; !strings.Contains(header, "/768 · ") {
		t.Fatalf("the header does not show the prompt's room in the window: %q", header)
	}
	p.waitScreen("next send leaves out messages 1–")

	// Select the first question and pin it.
	p.press("Escape", "SELECT")
	for range 2*turns - 1 {
		p.key("k")
	}
	p.press("p", "#1 pinned")
	p.waitScreen("next send leaves out messages 2–")
	p.key("i")
	sent := p.srv.Requests()
	p.send("and in short?")
	p.waitRequests(sent + 1)
	p.waitScreen("idle")
	msgs := p.srv.Received()[sent].Messages
	var got []string
	for _, m := range msgs {
		got = append(got, strings.SplitN(m.Content, ":", 2)[0])
	}
	has := func(s string) bool { return strings.Contains(strings.Join(got, "|"), s) }
	if !has("question 1") || has("question 2") || !has("and in short?") {
		t.Fatalf("the request after compaction carried %q: want the pinned question 1, not question 2", got)
	}
	p.key("C-c")

	// Opened again, the pin is still there.
	p.tmux("respawn-pane", "-k", "-t", "parley", p.command(nil, "-c"))
	p.waitScreen("(1024, llama-server)")
	p.press("Home", "You · #1 · pinned")
	p.key("C-c")
}

// TestTmuxCompactionAndSpend runs the parley binary in tmux against a server that rejects
// prompts above a token budget: a long session compacts once, the screen shows the note and
// no retry, and the header shows the session's spend. Then a session token limit refuses the
// next message without sending it.
func TestTmuxCompactionAndSpend(t *testing.T) {
	t.Parallel()
	p := newPane(t, "gpt-4o-mini", demo.Options{})
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 20)
	for i := range 5 {
		p.printMode("-c", "-p", fmt.Sprintf("question %d: %s", i, filler))
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
