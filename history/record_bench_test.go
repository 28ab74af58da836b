package history

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/chat/chattest"
)

// cpuNow is the CPU time (user+sys) the process has used so far.
func cpuNow(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRecord is the cost of persisting a streamed reply: its deltas pass through Record
// into a real SQLite file ("writes"), or straight from the stream to the reader ("none"),
// which is what the stream costs without history. The stream's rate sets how many batched
// writes Record makes (one per 250 ms): 100,000 tokens a second is an unpaced endpoint, 50 a
// second a model typing at reading speed. Reported per token, in CPU time (user+sys, the
// garbage collector and SQLite included):
//
//	go test ./history -run '^$' -bench Record
func BenchmarkRecord(b *testing.B) {
	for _, c := range []struct {
		tokens, rate int
	}{{100_000, 100_000}, {20_000, 50}, {100_000, 50}} {
		for _, writes := range []bool{true, false} {
			mode := "none"
			if writes {
				mode = "writes"
			}
			b.Run(fmt.Sprintf("tokens=%d/rate=%d/%s", c.tokens, c.rate, mode), func(b *testing.B) {
				var cpu time.Duration
				for range b.N {
					b.StopTimer()
					db, err := Open(b.TempDir() + "/history.db")
					if err != nil {
						b.Fatal(err)
					}
					s, err := db.CreateSession()
					if err != nil {
						b.Fatal(err)
					}
					rc, err := db.Post(s.ID, "tell me", "m", false)
					if err != nil {
						b.Fatal(err)
					}
					// Each delta moves the clock by the time between two tokens, so Record flushes as
					// often as it would at that rate, however fast the benchmark runs.
					clock := chattest.New(time.Unix(0, 0))
					in := make(chan chat.Event, 64)
					out := (<-chan chat.Event)(in)
					b.StartTimer()
					start := cpuNow(b)
					if writes {
						out = db.Record(rc.RunID, in, clock)
					}
					go func() {
						gap := time.Second / time.Duration(c.rate)
						in <- chat.Event{Kind: chat.EventStarted, Attempt: 1}
						for i := range c.tokens {
							in <- chat.Event{Kind: chat.EventDelta, Text: tokenText[i%len(tokenText)]}
							clock.Advance(gap)
						}
						in <- chat.Event{Kind: chat.EventFinished}
						close(in)
					}()
					n := 0
					for ev := range out {
						if ev.Kind == chat.EventDelta {
							n++
						}
					}
					cpu += cpuNow(b) - start
					b.StopTimer()
					if n != c.tokens {
						b.Fatalf("%d deltas forwarded, want %d", n, c.tokens)
					}
					if writes {
						// The reply as a reader finds it once the end is shown: its text may still
						// be in chunks, the fold after the end not yet done.
						m, err := db.Message(rc.ReplyID)
						if err != nil || len(m.Content) != c.tokens*4 {
							b.Fatalf("stored %d bytes (%v), want %d", len(m.Content), err, c.tokens*4)
						}
					}
					db.Close()
					b.StartTimer()
				}
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*c.tokens), "cpu-ns/token")
				b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/reply")
			})
		}
	}
}

// tokenText are four-byte tokens, the average size endpoints stream.
var tokenText = []string{" the", " rep", "ly, ", "code", "\n\n- ", "item", " `x`", "tok."}

// BenchmarkFinishRun is the cost of a run's end against its reply's length: storing the end
// (what Record waits for before the screen is told) and the fold of the reply's streamed
// chunks into it and its index that follows, each in ms per run. The reply is appended in
// 64 KB chunks first, as Record appends an unpaced stream's batches:
//
//	go test ./history -run '^$' -bench FinishRun
func BenchmarkFinishRun(b *testing.B) {
	for _, mb := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("reply=%dMB", mb), func(b *testing.B) {
			var end, fold time.Duration
			batch := strings.Repeat("tok ", 16<<10)
			for range b.N {
				b.StopTimer()
				db, err := Open(b.TempDir() + "/history.db")
				if err != nil {
					b.Fatal(err)
				}
				rc, err := db.Post("", "tell me", "m", false)
				if err != nil {
					b.Fatal(err)
				}
				if err := db.StartRun(rc.RunID); err != nil {
					b.Fatal(err)
				}
				for range mb << 20 / len(batch) {
					if err := db.AppendReply(rc.RunID, batch, ""); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				start := time.Now()
				if err := db.endRun(rc.RunID, stored.Finish{Status: chat.StatusSucceeded, Attempts: 1}); err != nil {
					b.Fatal(err)
				}
				ended := time.Now()
				db.foldReply(rc.RunID)
				end, fold = end+ended.Sub(start), fold+time.Since(ended)
				b.StopTimer()
				var size int
				if err := db.pool().QueryRow(`SELECT length(content) FROM messages WHERE id = ?`, rc.ReplyID).Scan(&size); err != nil || size != mb<<20 {
					b.Fatalf("folded %d bytes (%v), want %d", size, err, mb<<20)
				}
				db.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(end.Microseconds())/1e3/float64(b.N), "end-ms/run")
			b.ReportMetric(float64(fold.Microseconds())/1e3/float64(b.N), "fold-ms/run")
		})
	}
}
