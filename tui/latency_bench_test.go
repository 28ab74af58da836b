package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/internal/chat"
	"parley/internal/markdown/markdowntest"
)

// What a key waits for: the benchmarks below time each message the event loop handles (Update,
// then View) while a long reply streams, and each key typed into the input box. Run them with
//
//	go test ./tui -run '^$' -bench 'Messages|Keys' -benchtime 1x

// BenchmarkMessages streams replies of 400,000 tokens (realistic markdown, and one inside a
// single code block) at 60,000 tokens a second into a 120×40 screen, a batch per batchWindow
// and the frames the model asks for, and times every message's Update and View: the worst
// and the 99th percentile are what a key can wait behind. They must not grow with the reply.
func BenchmarkMessages(b *testing.B) {
	for _, c := range []struct {
		name     string
		openCode bool
	}{{"realistic", false}, {"open-code", true}} {
		toks := markdowntest.DemoReply(b, 400_000, c.openCode)
		b.Run(fmt.Sprintf("%s/tokens=%d", c.name, len(toks)), func(b *testing.B) {
			var times []time.Duration
			worstWork := 0
			for range b.N {
				b.StopTimer()
				m, clock := clockedStream(b, storedExchanges(5), 120, 40)
				tag := m.active.tag
				ch := make(chan chat.Event)
				per := 60_000 * int(batchWindow) / int(time.Second)
				b.StartTimer()
				handle := func(msg tea.Msg) {
					start := time.Now()
					m, _ = step(m, msg)
					m.View()
					times = append(times, time.Since(start))
					worstWork = max(worstWork, spent(m))
				}
				for i := 0; i < len(toks); i += per {
					clock.Advance(batchWindow)
					for m.framePending {
						handle(frameMsg{tag: tag})
					}
					handle(runEventsMsg{tag: tag, events: []chat.Event{delta(strings.Join(toks[i:min(i+per, len(toks))], ""))}, ch: ch})
				}
				handle(runEventsMsg{tag: tag, events: []chat.Event{{Kind: chat.EventFinished}}, ch: ch})
				if m.active != nil {
					b.Fatal("the run did not end")
				}
			}
			slices.Sort(times)
			b.ReportMetric(float64(len(times))/float64(b.N), "msgs/reply")
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms/msg")
			b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms/msg")
			b.ReportMetric(float64(times[len(times)-1].Microseconds())/1000, "worst-ms/msg")
			b.ReportMetric(float64(worstWork), "worst-work/msg")
		})
	}
}

// BenchmarkKeys types 25 characters, one Update and View each, into an input box that is
// empty, that holds a collapsed paste of 120 KB, and that holds the same 120 KB as text
// (1,300 lines) with the cursor in its middle. A key must cost the same in all three.
func BenchmarkKeys(b *testing.B) {
	draft := bigDraft(1300)
	for _, c := range []struct {
		name  string
		setup func(m Model) Model
	}{
		{"empty", func(m Model) Model { return m }},
		{"paste=120KB", func(m Model) Model {
			m, _ = step(m, tea.PasteMsg{Content: draft})
			return m
		}},
		{"draft=120KB", func(m Model) Model {
			m.input.SetValue(draft)
			for range 650 {
				m, _ = step(m, press("up"))
			}
			return m
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var worst time.Duration
			for range b.N {
				b.StopTimer()
				m := c.setup(loadedModel(b, storedExchanges(5), 120, 40))
				m.View()
				b.StartTimer()
				for _, r := range "the quick brown fox jumps" {
					start := time.Now()
					m, _ = step(m, tea.KeyPressMsg{Code: r, Text: string(r)})
					m.View()
					worst = max(worst, time.Since(start))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(25*b.N), "ns/key")
			b.ReportMetric(float64(worst.Microseconds()), "worst-µs/key")
		})
	}
}
