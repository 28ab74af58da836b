package tui

import (
	"fmt"
	"strings"
	"testing"

	"parley/agent"
)

// benchTokens is a markdown reply cut into the word-sized deltas an endpoint streams.
func benchTokens() []string {
	doc := "A paragraph of streamed words with **bold** and `code`, long enough to wrap at least once on the screen.\n\n" +
		"- a list item\n- another item with more words\n\n" +
		"```go\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n```\n\n" +
		"## A heading\n\nThen a closing paragraph.\n\n"
	var toks []string
	for _, w := range strings.SplitAfter(doc, " ") {
		toks = append(toks, w)
	}
	return toks
}

// BenchmarkDelta streams deltas through the real Update and View into a session that holds
// some finished messages. A frame is rendered every 4 deltas (about 120 tokens/s at 30 fps).
// The cost per delta must not depend on how many messages the session holds:
//
//	go test ./tui -run '^$' -bench Delta -benchtime 10000x
func BenchmarkDelta(b *testing.B) {
	toks := benchTokens()
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("finished=%d", n), func(b *testing.B) {
			m := streaming(b, storedExchanges(n/2), 100, 40)
			if m.transcript.Len() != n+2 {
				b.Fatalf("%d messages, want %d", m.transcript.Len(), n+2)
			}
			ch := make(chan agent.Event)
			m.View()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				m, _ = step(m, runEventsMsg{run: m.run.id, events: []agent.Event{delta(toks[i%len(toks)])}, ch: ch})
				if i%4 == 3 {
					m, _ = step(m, frameMsg{run: m.run.id})
				}
				m.View()
			}
		})
	}
}
