package chat_test

import (
	"testing"

	"parley/internal/chat"
	"parley/internal/chat/chattest"
)

func TestDecide(t *testing.T) {
	chattest.CheckEndings(t, func(t *testing.T, e chattest.Ending) chat.Outcome {
		last := e.Events[len(e.Events)-1]
		return chat.Decide(last, last.Terminal())
	})
	// A non-terminal event decides nothing: it is the same as none.
	if got := chat.Decide(chat.Event{Kind: chat.EventDelta}, true); got.Status != chat.StatusFailed || got.Retry.Class != chat.Network {
		t.Errorf("Decide(delta) = %+v", got)
	}
}
