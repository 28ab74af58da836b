package printmode

import (
	"io"
	"strings"
	"testing"
	"time"

	"parley/internal/chat"
	"parley/internal/chat/chattest"
)

// Print mode reports every ending as chat.Decide decides it, as the recorder stores it and the
// chat screen shows it (their tests hold them to the same table), with the exit status the
// outcome calls for.
func TestPrintReportsEveryEndingAsDecided(t *testing.T) {
	exits := map[chat.Status]int{chat.StatusSucceeded: chat.ExitOK, chat.StatusCancelled: chat.ExitInterrupted}
	chattest.CheckEndings(t, func(t *testing.T, e chattest.Ending) chat.Outcome {
		res, code := printEvents(e.Feed(), view{stdout: io.Discard, stderr: io.Discard, jsonOut: true})
		want, ok := exits[e.Want.Status]
		if !ok {
			want = map[bool]int{true: chat.ExitRetryable, false: chat.ExitFailed}[e.Want.Retry.Retryable]
		}
		if code != want {
			t.Errorf("exit %d, want %d", code, want)
		}
		return chat.Outcome{Status: res.Status, Retry: res.Retry}
	})
}

// On a terminal stderr, while the model thinks unseen, a line counts the thinking each second,
// as the wait for the first word is counted, and goes when the answer starts; on a pipe, or
// with the thinking shown, there is none.
func TestThinkingIsCountedOnATerminal(t *testing.T) {
	for _, c := range []struct {
		name                    string
		terminal, showReasoning bool
		counted                 bool
	}{
		{"terminal", true, false, true},
		{"pipe", false, false, false},
		{"thinking shown", true, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := printLive(view{stderrTerminal: c.terminal, showReasoning: c.showReasoning})
			// second lets a second pass; a line counting, when shown, then says want.
			second := func(shown bool, want string) {
				t.Helper()
				if shown {
					p.clock.NextWait(t)
				}
				p.clock.Advance(time.Second)
				if shown {
					chattest.WaitFor(t, want, func() bool { return strings.HasSuffix(p.stderr.String(), "\r\x1b[K"+want) })
				}
			}
			p.events <- chat.Event{Kind: chat.EventStarted, Attempt: 1}
			second(c.terminal, "waiting for the reply · 1s · ctrl+c cancels")
			p.events <- chat.Event{Kind: chat.EventReasoning, Text: "Recall the handshake. "}
			if c.counted { // the wait for the first word gives way to the thinking
				chattest.WaitFor(t, "the wait cleared", func() bool { return strings.HasSuffix(p.stderr.String(), "ctrl+c cancels\r\x1b[K") })
			}
			second(c.counted, "thinking… 1s · ctrl+c cancels")
			p.events <- chat.Event{Kind: chat.EventReasoning, Text: "Then the window."}
			second(c.counted, "thinking… 2s · ctrl+c cancels")
			p.events <- chat.Event{Kind: chat.EventDelta, Text: "TCP starts slowly."}
			p.events <- chat.Event{Kind: chat.EventFinished, FinishReason: "stop"}
			p.end()
			got := p.stderr.String()
			if c.counted && !strings.HasSuffix(got, "thinking… 2s · ctrl+c cancels\r\x1b[K") {
				t.Errorf("the thinking line is not cleared when the answer starts: %q", got)
			}
			if !c.counted && strings.Contains(got, "thinking…") {
				t.Errorf("stderr %q", got)
			}
		})
	}
}

// Tier 1's waits are said on stderr in the screen's words (retry.Reconnecting), on print
// mode's clock: the retry budget's as the time of day it frees.
func TestTier1WaitsAreSaidInTheScreensWords(t *testing.T) {
	clock := chattest.New(chattest.Start)
	overloaded := chat.Classification{Retryable: true, Class: chat.Overloaded, Label: "Provider overloaded"}
	events := make(chan chat.Event, 4)
	events <- chat.Event{Kind: chat.EventRetrying, Attempt: 2, MaxAttempts: 3, Wait: 1200 * time.Millisecond, Class: overloaded}
	events <- chat.Event{Kind: chat.EventRetrying, Attempt: 3, MaxAttempts: 3, Wait: 20 * time.Second, Class: overloaded, BudgetSpent: true}
	events <- chat.Event{Kind: chat.EventFinished}
	close(events)
	var stderr strings.Builder
	printEvents(events, view{stdout: io.Discard, stderr: &stderr, clock: clock})
	budgetFrees := chat.FormatClockSeconds(chattest.Start.Add(20*time.Second), chattest.Start)
	want := "parley: Provider overloaded — reconnecting, attempt 2/3 in 2s\n" +
		"parley: retry budget spent — next retry at " + budgetFrees + "\n"
	if got := stderr.String(); got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
}

// A reply that goes silent after its first words is said once on stderr, as the screen counts
// it, with when the silence ends it; text again, and a new silence is said again. Before the
// first word, silence is the wait for it, which is counted (on a terminal) instead.
func TestASilentReplyIsSaidOnce(t *testing.T) {
	p := printLive(view{idleDeadline: 2 * time.Minute})
	line := "parley: no text for 5s · the reply ends as a timeout after 2m of silence · ctrl+c cancels\n"
	p.events <- chat.Event{Kind: chat.EventStarted, Attempt: 1}
	p.events <- chat.Event{Kind: chat.EventDelta, Text: "The handshake"}
	if d := p.clock.NextWait(t); d != chat.SilenceShown {
		t.Fatalf("the silence is watched for %s, want %s", d, chat.SilenceShown)
	}
	p.clock.Advance(3 * time.Second)
	p.events <- chat.Event{Kind: chat.EventDelta, Text: " takes"} // 3 s in: not yet silent
	chattest.WaitFor(t, "the text shown", func() bool { return p.stdout.String() == "The handshake takes" })
	p.clock.Advance(2 * time.Second)
	if d := p.clock.NextWait(t); d != 3*time.Second { // the rest of a silence from the last text
		t.Fatalf("the watch goes on for %s, want 3s", d)
	}
	if p.stderr.String() != "" {
		t.Fatalf("a pause shorter than %s is said: %q", chat.SilenceShown, p.stderr.String())
	}
	p.clock.Advance(3 * time.Second)
	chattest.WaitFor(t, "the silence said", func() bool { return p.stderr.String() == line })
	if got := p.stdout.String(); got != "The handshake takes" {
		t.Errorf("stdout %q: the text before the silence is not flushed before it is said", got)
	}
	p.clock.Advance(time.Minute) // still silent: said once
	p.events <- chat.Event{Kind: chat.EventDelta, Text: " three steps."}
	chattest.WaitFor(t, "the text shown", func() bool { return strings.HasSuffix(p.stdout.String(), " three steps.") })
	p.clock.NextWait(t)
	p.clock.Advance(chat.SilenceShown)
	chattest.WaitFor(t, "the second silence said", func() bool { return p.stderr.String() == line+line })
	p.events <- chat.Event{Kind: chat.EventFinished, FinishReason: "stop"}
	p.end()
}

// livePrint is printEvents running while a test feeds it events on a manual clock, its
// output in buffers the test reads as it goes.
type livePrint struct {
	events         chan chat.Event
	clock          *chattest.Clock
	stdout, stderr *chattest.Buffer
	done           chan struct{}
}

// printLive starts printEvents on v, writing to new buffers on a manual clock at
// chattest.Start.
func printLive(v view) *livePrint {
	p := &livePrint{events: make(chan chat.Event), clock: chattest.New(chattest.Start),
		stdout: new(chattest.Buffer), stderr: new(chattest.Buffer), done: make(chan struct{})}
	v.stdout, v.stderr, v.clock = p.stdout, p.stderr, p.clock
	go func() {
		defer close(p.done)
		printEvents(p.events, v)
	}()
	return p
}

// end closes the events and waits for printing to end.
func (p *livePrint) end() {
	close(p.events)
	<-p.done
}
