// Package historytest opens parley's history database for a test: a real SQLite file in the
// test's temporary directory, closed when the test ends.
package historytest

import (
	"path/filepath"
	"testing"

	"parley/history"
)

// Open opens a fresh history database in a temporary directory.
func Open(t testing.TB) *history.DB {
	t.Helper()
	db, err := history.Open(filepath.Join(t.TempDir(), "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
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
