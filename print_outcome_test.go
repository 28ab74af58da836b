package main

import (
	"io"
	"testing"

	"parley/agent/chat"
	"parley/agent/chat/chattest"
)

// Print mode reports every ending as chat.Decide decides it, as the recorder stores it and the
// chat screen shows it (their tests hold them to the same table), with the exit status the
// outcome calls for.
func TestPrintReportsEveryEndingAsDecided(t *testing.T) {
	for _, e := range chattest.Endings() {
		t.Run(e.Name, func(t *testing.T) {
			events := make(chan chat.Event, len(e.Events))
			for _, ev := range e.Events {
				events <- ev
			}
			close(events)
			res, code := printEvents(events, true, io.Discard, false, io.Discard)
			if got := (chat.Outcome{Status: res.Status, Retry: res.Retry}); !chattest.SameOutcome(got, e.Want) {
				t.Errorf("reported %s %+v, want %s %+v", got.Status, got.Retry, e.Want.Status, e.Want.Retry)
			}
			want := exitOK
			switch {
			case e.Want.Status == chat.StatusCancelled:
				want = exitInterrupted
			case e.Want.Status == chat.StatusFailed && e.Want.Retry.Retryable:
				want = exitRetryable
			case e.Want.Status == chat.StatusFailed:
				want = exitFailed
			}
			if code != want {
				t.Errorf("exit %d, want %d", code, want)
			}
		})
	}
}
