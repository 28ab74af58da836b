package history

import (
	"testing"

	"parley/agent/chat"
	"parley/agent/chat/chattest"
)

// The recorder stores every ending as chat.Decide decides it; the chat screen and print mode
// are held to the same table in their own packages.
func TestRecordStoresEveryEndingAsDecided(t *testing.T) {
	chattest.CheckEndings(t, func(t *testing.T, e chattest.Ending) chat.Outcome {
		db := openTemp(t)
		r := post(t, db, newSession(t, db).ID, "q")
		for range db.Record(r.RunID, e.Feed(), newFakeClock()) {
		}
		run, err := db.Run(r.RunID)
		if err != nil {
			t.Fatal(err)
		}
		return chat.Outcome{Status: run.Status, Retry: run.Retry}
	})
}
