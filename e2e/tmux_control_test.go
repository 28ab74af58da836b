package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"parley/internal/demo"
)

// Conversation control, driven as the operator drives it: a reply cut after 40 chunks goes on
// from the cut with c on Tier 2's banner, and F forks the conversation at its 3rd turn.
func TestTmuxContinueAndFork(t *testing.T) {
	t.Parallel()
	t.Run("c continues a cut reply", func(t *testing.T) {
		t.Parallel()
		p := newPane(t, "fake-model", demo.Options{Pace: 2 * time.Millisecond})
		p.srv.Push(demo.Fault{CutAfter: 40}) // Tier 1 never retries after text: one request
		p.start(110, 40, nil)
		p.send("tell me about quokkas")
		p.waitScreen("· c continue")
		p.key("c") // at once: the retry's countdown is 2 s
		msgs := p.waitExport("the continued reply", settledReplies(1))
		cut := msgs[1]
		sent := p.srv.Received()[1].Messages
		if len(sent) < 2 || sent[1].Role != "assistant" || sent[1].Content != cut.Content {
			t.Fatalf("the continuation sent %+v; want the cut text as the assistant's turn", sent)
		}
		joined := msgs[len(msgs)-1]
		if len(msgs) != 3 || !cut.Superseded || cut.Status != "failed" || !strings.HasPrefix(joined.Content, cut.Content) ||
			len(joined.Content) <= len(cut.Content) {
			t.Fatalf("export %+v; want the cut version kept and one reply going on from it", msgs)
		}
		if s := p.waitScreen("idle"); strings.Count(s, "‸") != 1 || strings.Contains(s, "Network error") {
			t.Fatalf("the seam is not marked once, or the cut still shows:\n%s", s)
		}
		t.Logf("cut at %d bytes, joined %d bytes", len(cut.Content), len(joined.Content))
	})

	t.Run("F forks at the 3rd of 6 turns", func(t *testing.T) {
		t.Parallel()
		p := newPane(t, "fake-model", demo.Options{Tokens: 3})
		p.start(110, 40, nil)
		for i := 1; i <= 6; i++ {
			p.send(fmt.Sprintf("question %d", i))
			p.waitExport(fmt.Sprintf("answer %d", i), settledReplies(i))
		}
		p.escSelects("SELECT")
		for range 3 { // from the 6th reply to the 3rd
			p.keys("Up", "Up")
		}
		s := p.press("F", `forked from "question 1" at`)
		if strings.Contains(s, "question 4") || !strings.Contains(s, "question 3") {
			t.Fatalf("the fork shows more or less than 3 turns:\n%s", s)
		}
		var list []struct {
			ID         string `json:"id"`
			Messages   int    `json:"messages"`
			ForkedFrom string `json:"forked_from"`
		}
		if err := json.Unmarshal(p.parley("sessions", "--json"), &list); err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 || list[0].Messages != 6 || list[0].ForkedFrom != list[1].ID || list[1].Messages != 12 {
			t.Fatalf("sessions %+v; want the fork of 6 messages linked to its origin of 12", list)
		}
	})
}
