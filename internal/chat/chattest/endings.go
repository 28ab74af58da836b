package chattest

import (
	"testing"
	"time"

	"parley/internal/chat"
)

// Ending is one way a run's events can end, with the outcome it must have wherever it is
// decided: the recorder, the chat screen and print mode all turn it into Want.
type Ending struct {
	Name string
	// Events are what the run emits before its channel closes: a delta, then the terminal
	// event, or no terminal event at all.
	Events []chat.Event
	Want   chat.Outcome
}

// Endings returns a row for every terminal event kind, every kind of failure the outcome
// distinguishes, and a run whose events stop without a terminal event.
func Endings() []Ending {
	partial := chat.Event{Kind: chat.EventDelta, Text: "partial "}
	overloaded := chat.Classification{Retryable: true, Class: chat.Overloaded, Label: chat.Label(chat.Overloaded),
		Message: "Overloaded", RetryAfterUntil: time.Date(2026, 3, 1, 12, 5, 0, 0, time.UTC)}
	auth := chat.Classification{Class: chat.AuthFailed, Label: chat.Label(chat.AuthFailed), Message: "Invalid API Key"}
	stopped := chat.Classification{Class: chat.Cancelled, Label: chat.Label(chat.Cancelled)}
	ended := chat.EndedWithoutResult
	return []Ending{
		{"finished", []chat.Event{partial, {Kind: chat.EventFinished, FinishReason: "stop"}},
			chat.Outcome{Status: chat.StatusSucceeded}},
		{"cancelled", []chat.Event{partial, {Kind: chat.EventCancelled}},
			chat.Outcome{Status: chat.StatusCancelled}},
		{"failed retryable", []chat.Event{partial, {Kind: chat.EventFailed, Class: overloaded}},
			chat.Outcome{Status: chat.StatusFailed, Retry: &overloaded}},
		{"failed not retryable", []chat.Event{{Kind: chat.EventFailed, Class: auth}},
			chat.Outcome{Status: chat.StatusFailed, Retry: &auth}},
		{"failed as cancelled", []chat.Event{partial, {Kind: chat.EventFailed, Class: stopped}},
			chat.Outcome{Status: chat.StatusCancelled}},
		{"no terminal event", []chat.Event{partial},
			chat.Outcome{Status: chat.StatusFailed, Retry: &ended}},
	}
}

// SameOutcome reports whether a and b say the same: the same status, and classifications
// equal field by field, times compared as instants.
func SameOutcome(a, b chat.Outcome) bool {
	if a.Status != b.Status || (a.Retry == nil) != (b.Retry == nil) {
		return false
	}
	if a.Retry == nil {
		return true
	}
	x, y := *a.Retry, *b.Retry
	return x.Retryable == y.Retryable && x.Class == y.Class && x.Label == y.Label && x.Message == y.Message &&
		x.RetryAfterUntil.Equal(y.RetryAfterUntil)
}

// CheckEndings runs every ending as a subtest: outcome feeds it to the part under test and
// returns the outcome that part stored, showed or reported, which must be the ending's Want.
func CheckEndings(t *testing.T, outcome func(t *testing.T, e Ending) chat.Outcome) {
	for _, e := range Endings() {
		t.Run(e.Name, func(t *testing.T) {
			if got := outcome(t, e); !SameOutcome(got, e.Want) {
				t.Errorf("%s %+v, want %s %+v", got.Status, got.Retry, e.Want.Status, e.Want.Retry)
			}
		})
	}
}

// Feed returns a closed channel holding e's events, as a run emits them.
func (e Ending) Feed() <-chan chat.Event {
	ch := make(chan chat.Event, len(e.Events))
	for _, ev := range e.Events {
		ch <- ev
	}
	close(ch)
	return ch
}
