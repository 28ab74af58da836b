package history

import (
	"testing"

	"parley/agent/chat"
	"parley/agent/chat/chattest"
)

// The recorder stores every ending as chat.Decide decides it; the chat screen and print mode
// are held to the same table in their own packages.
func TestRecordStoresEveryEndingAsDecided(t *testing.T) {
	for _, e := range chattest.Endings() {
		t.Run(e.Name, func(t *testing.T) {
			db := openTemp(t)
			r := post(t, db, newSession(t, db).ID, "q")
			in := make(chan chat.Event, len(e.Events))
			for _, ev := range e.Events {
				in <- ev
			}
			close(in)
			for range db.Record(r.RunID, in, newFakeClock()) {
			}
			run, err := db.Run(r.RunID)
			if err != nil {
				t.Fatal(err)
			}
			if !chattest.SameOutcome(chat.Outcome{Status: run.Status, Retry: run.Retry}, e.Want) {
				t.Errorf("stored %s %+v, want %s %+v", run.Status, run.Retry, e.Want.Status, e.Want.Retry)
			}
		})
	}
}
