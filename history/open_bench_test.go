package history

import (
	"path/filepath"
	"testing"
)

// BenchmarkOpen is what every parley command pays before it does anything: opening a database
// that is already set up, and closing it. A handle opens two connections, its pool's and the
// one held.go pins, and only the pool's parses the schema:
//
//	go test ./history -run '^$' -bench Open
func BenchmarkOpen(b *testing.B) {
	path := filepath.Join(b.TempDir(), "history.db")
	db, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.Post("", "hello", "m", false); err != nil {
		b.Fatal(err)
	}
	db.Close()
	for b.Loop() {
		db, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
}
