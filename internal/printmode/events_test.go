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
			clock := chattest.New(chattest.Start)
			stdout, stderr := new(chattest.Buffer), new(chattest.Buffer)
			events := make(chan chat.Event)
			done := make(chan struct{})
			go func() {
				defer close(done)
				printEvents(events, view{stdout: stdout, stderr: stderr, stderrTerminal: c.terminal, showReasoning: c.showReasoning, clock: clock})
			}()
			// second lets a second pass; a line counting, when shown, then says want.
			second := func(shown bool, want string) {
				t.Helper()
				if shown {
					clock.NextWait(t)
				}
				clock.Advance(time.Second)
				if shown {
					chattest.WaitFor(t, want, func() bool { return strings.HasSuffix(stderr.String(), "\r\x1b[K"+want) })
				}
			}
			events <- chat.Event{Kind: chat.EventStarted, Attempt: 1}
			second(c.terminal, "waiting for the reply · 1s · ctrl+c cancels")
			events <- chat.Event{Kind: chat.EventReasoning, Text: "Recall the handshake. "}
			if c.counted { // the wait for the first word gives way to the thinking
				chattest.WaitFor(t, "the wait cleared", func() bool { return strings.HasSuffix(stderr.String(), "ctrl+c cancels\r\x1b[K") })
			}
			second(c.counted, "thinking… 1s · ctrl+c cancels")
			events <- chat.Event{Kind: chat.EventReasoning, Text: "Then the window."}
			second(c.counted, "thinking… 2s · ctrl+c cancels")
			events <- chat.Event{Kind: chat.EventDelta, Text: "TCP starts slowly."}
			events <- chat.Event{Kind: chat.EventFinished, FinishReason: "stop"}
			close(events)
			<-done
			got := stderr.String()
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
