package tui

import (
	"testing"

	"parley/agent/chat"
	"parley/agent/chat/chattest"
)

// The chat screen shows every ending as chat.Decide decides it, as the recorder stores it and
// print mode reports it (their tests hold them to the same table).
func TestScreenShowsEveryEndingAsDecided(t *testing.T) {
	for _, e := range chattest.Endings() {
		t.Run(e.Name, func(t *testing.T) {
			m := streaming(t, storedExchanges(1), 80, 24)
			reply := m.run.rcpt.ReplyID
			m, _ = step(m, runEventsMsg{run: m.run.id, events: e.Events, ch: make(chan chat.Event), closed: true})
			if m.run != nil {
				t.Fatal("the run is still active after its events ended")
			}
			ent := m.transcript.byID[reply]
			got := chat.Outcome{Status: ent.msg.Status, Retry: ent.msg.Retry}
			if !chattest.SameOutcome(got, e.Want) {
				t.Errorf("shown %s %+v, want %s %+v", got.Status, got.Retry, e.Want.Status, e.Want.Retry)
			}
		})
	}
}
