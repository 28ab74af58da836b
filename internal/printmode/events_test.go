package printmode

import (
	"io"
	"testing"

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
