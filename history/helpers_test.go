package history

import (
	"database/sql"
	"path/filepath"
	"testing"

	"parley/internal/chat"
)

// openTemp opens a new database in a temporary directory, closed when the test ends.
func openTemp(t *testing.T) *DB {
	t.Helper()
	db, err := Open(filepath.Join(t.TempDir(), "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// openSession opens a new database with one new session in it.
func openSession(t *testing.T) (*DB, Session) {
	t.Helper()
	db := openTemp(t)
	return db, newSession(t, db)
}

// openAgain opens a second handle on the database of db, as a second parley would.
func openAgain(t *testing.T, db *DB) *DB {
	t.Helper()
	db2, err := Open(db.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db2.Close() })
	return db2
}

// rawSQL opens the file with the bare driver, bypassing this package.
func rawSQL(t *testing.T, path string) *sql.DB {
	t.Helper()
	r, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// newSession creates a session or fails the test.
func newSession(t *testing.T, db *DB) Session {
	t.Helper()
	s, err := db.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// post posts content or fails the test.
func post(t *testing.T, db *DB, sessionID, content string) Receipt {
	t.Helper()
	r, err := db.Post(sessionID, content, "test-model", false)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// regenerate starts a new reply to the live operator message anchorID or fails the test.
func regenerate(t *testing.T, db *DB, anchorID int64) Receipt {
	t.Helper()
	r, err := db.Regenerate(anchorID, "test-model", false)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// answer runs r to success with reply text.
func answer(t *testing.T, db *DB, r Receipt, text string) {
	t.Helper()
	runTo(t, db, r, text, Finish{Status: chat.StatusSucceeded, Attempts: 1})
}

// runTo starts run r, streams text into its reply and ends it as fin says.
func runTo(t *testing.T, db *DB, r Receipt, text string, fin Finish) {
	t.Helper()
	streaming(t, db, r, text)
	if err := db.FinishRun(r.RunID, fin); err != nil {
		t.Fatal(err)
	}
}

// streaming starts run r and streams text into its reply, leaving it running.
func streaming(t *testing.T, db *DB, r Receipt, text string) {
	t.Helper()
	if err := db.StartRun(r.RunID); err != nil {
		t.Fatal(err)
	}
	if err := db.AppendReply(r.RunID, text, ""); err != nil {
		t.Fatal(err)
	}
}
