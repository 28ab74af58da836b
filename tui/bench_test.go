package tui

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"parley/history"
	"parley/internal/chat"
	"parley/internal/chat/chattest"
	"parley/internal/markdown/markdowntest"
)

// The benchmarks feed the model as the program does: the reader hands over the deltas of one
// batchWindow per message and View runs after every message (the reply is
// markdowntest.DemoReply's). The model's clock is moved by the simulated stream, so the model
// renders frames when it would at that rate, however fast the benchmark runs. They report CPU
// time (user+sys of the whole process, so the garbage collector is counted) next to wall time.
// Run them all with
//
//	go test ./tui -run '^$' -bench . -benchtime 1x

// cpuTime is the CPU time the process has used so far.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// streamTokens delivers toks to the model's active run at rate tokens a second, as the program
// would: one message per batchWindow of simulated time, View after each message, a frame
// when the model asks for one; then the end of the run.
func streamTokens(m Model, toks []string, rate int) Model {
	clock := chattest.New(clockStart)
	m.clock = clock
	per := max(1, rate*int(batchWindow)/int(time.Second))
	ch := make(chan chat.Event)
	tag := m.active.tag
	batch := make([]chat.Event, 0, per)
	for i := 0; i < len(toks); i += per {
		clock.Advance(batchWindow)
		if m.framePending {
			// Its tick fires before the next batch is gathered.
			m, _ = step(m, frameMsg{tag: tag})
			m.View()
		}
		batch = batch[:0]
		for _, tok := range toks[i:min(i+per, len(toks))] {
			batch = append(batch, chat.Event{Kind: chat.EventDelta, Text: tok})
		}
		m, _ = step(m, runEventsMsg{tag: tag, events: batch, ch: ch})
		m.View()
	}
	m, _ = step(m, runEventsMsg{tag: tag, events: []chat.Event{{Kind: chat.EventFinished}}, ch: ch})
	m.View()
	return m
}

// BenchmarkDelta is the cost of one delta of a reply streamed at a reading pace (120 tokens a
// second: four deltas per message and frame) into a session of 10 or 1,000 finished messages.
// It must not depend on the size of the session.
func BenchmarkDelta(b *testing.B) {
	toks := markdowntest.DemoReply(b, 2000, false)
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("finished=%d", n), func(b *testing.B) {
			var cpu time.Duration
			var allocs uint64
			var ms runtime.MemStats
			for range b.N {
				b.StopTimer()
				m := streamingModel(b, storedExchanges(n/2), 100, 40)
				if m.transcript.Len() != n+2 {
					b.Fatalf("%d messages, want %d", m.transcript.Len(), n+2)
				}
				m.View()
				runtime.ReadMemStats(&ms)
				allocs -= ms.Mallocs
				b.StartTimer()
				c := cpuTime(b)
				m = streamTokens(m, toks, 120)
				cpu += cpuTime(b) - c
				b.StopTimer()
				runtime.ReadMemStats(&ms)
				allocs += ms.Mallocs
				b.StartTimer()
			}
			deltas := float64(b.N * len(toks))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/deltas, "ns/delta")
			b.ReportMetric(float64(cpu.Nanoseconds())/deltas, "cpu-ns/delta")
			b.ReportMetric(float64(allocs)/deltas, "allocs/delta")
		})
	}
}

// BenchmarkReply streams whole replies of 2k, 20k and 100k tokens through Update and View at
// 60,000 tokens a second (what the demo endpoint delivers without pacing), and reports the
// CPU seconds per reply. The cost per token must stay flat as replies grow.
func BenchmarkReply(b *testing.B) {
	all := markdowntest.DemoReply(b, 100_000, false)
	for _, n := range []int{2_000, 20_000, 100_000} {
		b.Run(fmt.Sprintf("tokens=%d", n), func(b *testing.B) {
			toks := all[:n]
			var cpu time.Duration
			for range b.N {
				b.StopTimer()
				m := streamingModel(b, storedExchanges(5), 100, 30)
				b.StartTimer()
				c := cpuTime(b)
				m = streamTokens(m, toks, 60_000)
				cpu += cpuTime(b) - c
				if m.active != nil {
					b.Fatal("the run did not end")
				}
			}
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/reply")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*n), "cpu-ns/token")
		})
	}
}

// BenchmarkFirstFrame opens a stored session of 10,000 messages, as `parley --session` does,
// and draws its first frame: open the database, read the session's newest messages, size the
// screen, View.
func BenchmarkFirstFrame(b *testing.B) {
	path := filepath.Join(b.TempDir(), "history.db")
	db, err := history.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	s := newSessionIn(b, db)
	reply := strings.Join(markdowntest.DemoReply(b, 120, false), "")
	for i := range 5000 {
		storeExchange(b, db, s.ID, fmt.Sprintf("question %d", i+1), reply)
	}
	db.Close()
	b.ResetTimer()
	for range b.N {
		db, err := history.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		m, _ := openOffline(b, db, s, 100, 30)
		v := m.View()
		b.StopTimer()
		if m.transcript.Len() != firstScreen || plain(m) == "" || v.Content == "" {
			b.Fatalf("%d messages shown", m.transcript.Len())
		}
		db.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/frame")
}

// BenchmarkScroll pages from the end of a session of 10,000 messages (replies of a few
// markdown blocks) to its start, one Update and View per page up, as holding pgup does. Only
// the messages a page brings on screen are rendered, so every page costs about the same.
func BenchmarkScroll(b *testing.B) {
	reply := strings.Join(markdowntest.DemoReply(b, 120, false), "")
	msgs := storedExchanges(5000)
	for i := 1; i < len(msgs); i += 2 {
		msgs[i].Content = reply
	}
	pages := 0
	var worst time.Duration
	for range b.N {
		b.StopTimer()
		m := loadedModel(b, msgs, 100, 30)
		m.View()
		b.StartTimer()
		for !m.transcript.AtTop() {
			start := time.Now()
			m, _ = step(m, press("pgup"))
			m.View()
			worst = max(worst, time.Since(start))
			if pages++; pages > 10_000_000 {
				b.Fatal("pgup never reached the first message")
			}
		}
		b.StopTimer()
		if !strings.Contains(plain(m), "question 1\n") {
			b.Fatalf("the first message is not on screen at the top:\n%s", plain(m))
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(pages), "ns/page")
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms/page")
	b.ReportMetric(float64(pages)/float64(b.N), "pages")
}
