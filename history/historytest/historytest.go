// Package historytest opens parley's history database for a test: a real SQLite file in the
// test's temporary directory, closed when the test ends.
package historytest

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"parley/history"
)

// Open opens a fresh history database in a temporary directory: one Seed wrote.
func Open(t testing.TB) *history.DB {
	t.Helper()
	dir, err := os.MkdirTemp("", "parley-history-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeDir(t, dir) })
	db, err := history.Open(Seed(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Seed writes dir/history.db, a new database as parley's first run leaves it (created and
// migrated by history.Open, then closed), and returns its path. Under the race detector
// migrating costs a fifth of a second of CPU, and each test would pay it; the file is made once
// for the test binary and copied.
func Seed(t testing.TB, dir string) string {
	t.Helper()
	migrated.once.Do(func() { migrated.file, migrated.err = newDatabaseFile() })
	if migrated.err != nil {
		t.Fatalf("creating the database every test copies: %v", migrated.err)
	}
	path := filepath.Join(dir, "history.db")
	if err := os.WriteFile(path, migrated.file, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// migrated is the file Seed copies, made on first use.
var migrated struct {
	once sync.Once
	file []byte
	err  error
}

// newDatabaseFile creates a database in a directory of its own, closes it and returns its file.
func newDatabaseFile() ([]byte, error) {
	dir, err := os.MkdirTemp("", "parley-history-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "history.db")
	db, err := history.Open(path)
	if err != nil {
		return nil, err
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
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
