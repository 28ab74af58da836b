package history

import (
	"errors"
	"slices"
	"testing"
)

// Editing an operator message supersedes its turn and what follows (system prompts aside),
// stores the new text as a new operator message and keeps the old turn as a version.
func TestEditSupersedesTheTurnAndKeepsItAsAVersion(t *testing.T) {
	db := openTemp(t)
	s := newSession(t, db)
	r1 := post(t, db, s.ID, "first")
	answer(t, db, r1, "one")
	r2 := post(t, db, s.ID, "secnd")
	answer(t, db, r2, "two")
	if _, err := db.PostSystem(s.ID, SystemPrompt{Text: "Be terse."}); err != nil {
		t.Fatal(err)
	}

	e, err := db.Edit(r2.AnchorID, "second", "m", false)
	if err != nil {
		t.Fatal(err)
	}
	if e.SessionID != s.ID || !slices.Equal(e.Superseded, []int64{r2.AnchorID, r2.ReplyID}) || e.AnchorID <= r2.ReplyID {
		t.Fatalf("receipt %+v", e)
	}
	if got := contextOf(t, db, e.AnchorID); !slices.Equal(got, []string{"system: Be terse.", "user: first", "assistant: one", "user: second"}) {
		t.Fatalf("context %q", got)
	}
	old, err := db.Message(r2.AnchorID)
	if err != nil || old.Content != "secnd" || !old.Superseded {
		t.Fatalf("the old operator message: %+v, %v", old, err)
	}
	edited, err := db.Message(e.AnchorID)
	if err != nil || edited.EditOf != r2.AnchorID || edited.Superseded {
		t.Fatalf("the new operator message: %+v, %v", edited, err)
	}
	answer(t, db, e, "two, again")

	// Edited twice: every reply in the chain is a version, from either end.
	e2, err := db.Edit(e.AnchorID, "second, really", "m", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, anchor := range []int64{r2.AnchorID, e.AnchorID, e2.AnchorID} {
		vs, err := db.Versions(anchor)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, v := range vs {
			ids = append(ids, v.ID)
		}
		if !slices.Equal(ids, []int64{r2.ReplyID, e.ReplyID, e2.ReplyID}) {
			t.Errorf("versions of %d: %v", anchor, ids)
		}
	}
	if vs, _ := db.Versions(r1.AnchorID); len(vs) != 1 {
		t.Errorf("an unedited message has %d versions", len(vs))
	}

	if _, err := db.Edit(r2.AnchorID, "again", "m", false); !errors.Is(err, ErrNotFound) {
		t.Errorf("editing a superseded message: %v", err)
	}
	if _, err := db.Edit(r1.ReplyID, "again", "m", false); !errors.Is(err, ErrNotFound) {
		t.Errorf("editing a reply: %v", err)
	}
	if _, err := db.Edit(r1.AnchorID, "  ", "m", false); !errors.Is(err, ErrEmptyMessage) {
		t.Errorf("an empty edit: %v", err)
	}
	// The session can still be deleted whole, edits and all.
	if err := db.DeleteSession(s.ID); err != nil {
		t.Fatal(err)
	}
}
