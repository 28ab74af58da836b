// Package historytest opens parley's history database for a test: a real SQLite file in the
// test's temporary directory, closed when the test ends.
package historytest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"parley/history"
)

// Open opens a fresh history database in a temporary directory.
func Open(t testing.TB) *history.DB {
	t.Helper()
	dir, err := os.MkdirTemp("", "parley-history-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeDir(t, dir) })
	db, err := history.Open(filepath.Join(dir, "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// removeDir removes a database's directory once what still writes there has stopped. A
// statement under way when the handle closes keeps its connection until it ends (and with it
// the -wal and -shm files), and a run still being stored sends its end to the recovery file,
// as it would in a parley that quits then. A file written while the directory is being
// removed keeps it; it is removed again.
func removeDir(t testing.TB, dir string) {
	var err error
	for range 50 {
		if err = os.RemoveAll(dir); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("removing the test's database directory: %v", err)
}

// Reopen opens db's file a second time, as another parley process would, closed when the test
// ends.
func Reopen(t testing.TB, db *history.DB) *history.DB {
	t.Helper()
	again, err := history.Open(db.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { again.Close() })
	return again
}
