package history

import (
	"errors"
	"testing"
)

// Two windows on one session: a post by the one that has not seen the other's turns is refused.
func TestPostSeenRefusesWhatTheOtherProcessStored(t *testing.T) {
	db, s := openSession(t)
	mine, err := db.Post(s.ID, "my first question", "m", false)
	if err != nil {
		t.Fatal(err)
	}
	other := openAgain(t, db)
	theirs, err := other.Post(s.ID, "their question", "m", false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.PostSeen(s.ID, mine.ReplyID, "my second question", "m", false)
	var unseen *UnseenError
	if !errors.As(err, &unseen) || unseen.Count != 2 {
		t.Fatalf("PostSeen after the other's turn: %v, want 2 unseen messages", err)
	}
	msgs, err := db.Transcript(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 4 {
		t.Fatalf("%d messages stored, want the 4 of the two turns: the refused one is not stored", len(msgs))
	}
	// Once shown, it posts.
	if _, err := db.PostSeen(s.ID, theirs.ReplyID, "my second question", "m", false); err != nil {
		t.Fatalf("PostSeen having seen everything: %v", err)
	}
	// What another process superseded is not counted: only live messages are context.
	if _, err := other.Regenerate(theirs.AnchorID, "m", false); err != nil {
		t.Fatal(err)
	}
	msgs, _ = db.Transcript(s.ID)
	last := msgs[len(msgs)-1].ID
	if _, err := db.PostSeen(s.ID, last, "third", "m", false); err != nil {
		t.Fatalf("PostSeen having seen the live messages: %v", err)
	}
}
