package e2e

import (
	"regexp"
	"testing"
	"time"

	"parley/internal/demo"
)

// thoughtLine is the collapsed line of a reply's thinking once it is done.
var thoughtLine = regexp.MustCompile(`▸ Thought for \d+s · [\d.,]+k? tok`)

// A reply with thinking, reopened, says the same "Thought for Ns · N tok" as when it ended,
// the tokens being the endpoint's count of reasoning tokens.
func TestTmuxThoughtReadsTheSameReopened(t *testing.T) {
	p := newPane(t, "m", demo.Options{})
	p.srv.Push(demo.Fault{Think: demo.ThinkReasoningContent, ThinkFor: 2 * time.Second})
	p.start(100, 30, nil)
	p.send("think about it")
	p.waitReplies(1)
	before := thoughtLine.FindString(p.waitScreen("▸ Thought for"))
	if before == "" || before == "▸ Thought for 0s" {
		t.Fatalf("no duration after the reply: %q\n%s", before, p.screen())
	}
	p.key("C-d")
	p.waitScreenNot("parley ·")
	p.reopen()
	after := thoughtLine.FindString(p.waitScreen("▸ Thought"))
	if after != before {
		t.Fatalf("reopened the reply says %q, before %q\n%s", after, before, p.screen())
	}
	t.Logf("%s, streamed and reopened", after)
}
