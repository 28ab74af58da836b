package tui

import (
	"testing"

	"parley/agent/chat"
	"parley/agent/chat/chattest"
)

// The chat screen shows every ending as chat.Decide decides it, as the recorder stores it and
// print mode reports it (their tests hold them to the same table).
func TestScreenShowsEveryEndingAsDecided(t *testing.T) {
	chattest.CheckEndings(t, func(t *testing.T, e chattest.Ending) chat.Outcome {
		m := streaming(t, storedExchanges(1), 80, 24)
		reply := m.active.rcpt.ReplyID
		m, _ = step(m, runEventsMsg{tag: m.active.tag, events: e.Events, ch: make(chan chat.Event), closed: true})
		if m.active != nil {
			t.Fatal("the run is still active after its events ended")
		}
		shown := m.transcript.byID[reply].message
		return chat.Outcome{Status: shown.Status, Retry: shown.Retry}
	})
}
