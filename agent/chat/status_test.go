package chat_test

import (
	"reflect"
	"testing"

	"parley/agent/chat"
	"parley/agent/chat/chattest"
)

func TestDecide(t *testing.T) {
	for _, e := range chattest.Endings() {
		last, ok := e.Events[len(e.Events)-1], true
		if !last.Terminal() {
			last, ok = chat.Event{}, false
		}
		if got := chat.Decide(last, ok); !reflect.DeepEqual(got, e.Want) {
			t.Errorf("%s: Decide = %+v (retry %+v), want %+v (retry %+v)", e.Name, got, got.Retry, e.Want, e.Want.Retry)
		}
	}
	// A non-terminal event decides nothing: it is the same as none.
	if got := chat.Decide(chat.Event{Kind: chat.EventDelta}, true); got.Status != chat.StatusFailed || got.Retry.Class != chat.Network {
		t.Errorf("Decide(delta) = %+v", got)
	}
}
