package history

import (
	"errors"
	"testing"
)

// -c in the chat screen continues the session the screen last sent in, not the latest print
// mode wrote to: a handle the screen writes through marks each session it sends in.
func TestLatestInteractive(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	if _, err := db.LatestInteractive(); !errors.Is(err, ErrNotFound) {
		t.Fatalf("LatestInteractive of an empty database: %v", err)
	}
	screen := openAgain(t, db)
	screen.SetInteractive()
	chat := post(t, screen, "", "in the chat screen")
	printed := post(t, db, "", "in print mode")
	if s, err := db.LatestInteractive(); err != nil || s.ID != chat.SessionID {
		t.Fatalf("LatestInteractive = %s, %v; want %s", s.ID, err, chat.SessionID)
	}
	if s, _ := db.LatestSession(); s.ID != printed.SessionID {
		t.Errorf("LatestSession = %s; want the print-mode session %s", s.ID, printed.SessionID)
	}
	// Print mode continuing the screen's session leaves it the screen's; the screen sending
	// in print mode's makes that one the latest.
	post(t, db, chat.SessionID, "continued in print mode")
	regenerate(t, screen, printed.AnchorID)
	if s, _ := db.LatestInteractive(); s.ID != printed.SessionID {
		t.Errorf("after the screen regenerated in %s: LatestInteractive = %s", printed.SessionID, s.ID)
	}
}

// A session keeps the profile and model it was last set to run on.
func TestSessionModel(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	post(t, db, s.ID, "hello")
	if s, _ := db.Session(s.ID); s.Profile != "" || s.Model != "" {
		t.Errorf("a new session runs on %q %q; want none stored", s.Profile, s.Model)
	}
	if err := db.SetSessionModel(s.ID, "work", "gpt-4o"); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Session(s.ID); got.Profile != "work" || got.Model != "gpt-4o" {
		t.Errorf("session runs on %q %q; want work gpt-4o", got.Profile, got.Model)
	}
	if err := db.SetSessionModel("nosuchid", "work", "m"); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetSessionModel of no session: %v", err)
	}
}

// A database of an earlier schema gains both: none of its sessions was used in the chat screen
// that anyone knows of, none has a stored model, and each can be given one.
func TestChoicesOnAMigratedDatabase(t *testing.T) {
	t.Parallel()
	db := openCopy(t, "testdata/v1.db")
	sessions := mustSessions(t, db)
	for _, s := range sessions {
		if s.Profile != "" || s.Model != "" {
			t.Errorf("session %s runs on %q %q after migrating", s.ID, s.Profile, s.Model)
		}
	}
	if _, err := db.LatestInteractive(); !errors.Is(err, ErrNotFound) {
		t.Errorf("LatestInteractive after migrating: %v", err)
	}
	old := sessions[len(sessions)-1]
	if err := db.SetSessionModel(old.ID, "local", "qwen2.5:7b"); err != nil {
		t.Fatal(err)
	}
	db.SetInteractive()
	post(t, db, old.ID, "back in the chat screen")
	if s, err := db.LatestInteractive(); err != nil || s.ID != old.ID || s.Model != "qwen2.5:7b" {
		t.Errorf("LatestInteractive = %+v, %v", s, err)
	}
}
