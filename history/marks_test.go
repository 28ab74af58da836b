package history

import (
	"testing"

	"parley/history/stored"
	"parley/internal/chat"
)

// A reply regenerated twice is version 1, 2 and 3 of 3; a retry that failed before its first
// word is none; a turn answered once has no mark; an edit's reply counts with the turn it
// replaced.
func TestVersionMarksNumberTheVersions(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	q1 := exchange(t, db, s.ID, "first", "one")
	r2 := regenerate(t, db, q1.AnchorID)
	runTo(t, db, r2, "", stored.Finish{Status: chat.StatusFailed, Attempts: 1, Retry: &chat.Classification{Retryable: true, Class: chat.Overloaded, Label: "Provider overloaded"}})
	r3 := regenerate(t, db, q1.AnchorID)
	answer(t, db, r3, "two")
	q2 := exchange(t, db, s.ID, "second", "alone")
	e, err := db.Edit(q2.AnchorID, "second, edited", "test-model", false)
	if err != nil {
		t.Fatal(err)
	}
	answer(t, db, e, "edited answer")

	marks, err := db.VersionMarks(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]stored.Mark{q1.ReplyID: {N: 1, Of: 2}, r3.ReplyID: {N: 2, Of: 2}, q2.ReplyID: {N: 1, Of: 2}, e.ReplyID: {N: 2, Of: 2}}
	if len(marks) != len(want) {
		t.Fatalf("marks %v, want %v", marks, want)
	}
	for id, m := range want {
		if marks[id] != m {
			t.Fatalf("reply %d: %v, want %v (all: %v)", id, marks[id], m, marks)
		}
	}
}
