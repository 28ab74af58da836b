package history

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A database damaged where its sessions are kept opens, and reading them says so in plain
// words, with the file and the way out, not only "malformed (11)".
func TestReadingADamagedDatabaseSaysSo(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	post(t, db, newSession(t, db).ID, "kept")
	path := db.Path()
	var page, size int64
	raw := rawSQL(t, path)
	if err := raw.QueryRow(`SELECT rootpage FROM sqlite_master WHERE name = 'sessions'`).Scan(&page); err != nil {
		t.Fatal(err)
	}
	if err := raw.QueryRow(`PRAGMA page_size`).Scan(&size); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	db.Close() // the last connection: the WAL is checkpointed into the file
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(strings.Repeat("\xff", int(size))), (page-1)*size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	damaged, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer damaged.Close()
	_, err = damaged.Sessions()
	var se *StorageError
	if !errors.As(err, &se) || se.Fault != FaultDamaged || !strings.Contains(err.Error(), path+" is damaged") ||
		!strings.Contains(err.Error(), "docs/storage.md") {
		t.Fatalf("listing the sessions of a damaged database: %v", err)
	}
}

// What a sqlite3 ".recover" that failed part way leaves (Debian's sqlite3 has no sqlite_dbpage):
// a header with parley's schema version and no tables. It is refused, untouched, with the way
// out, instead of opened and failing on its first query.
func TestOpenRefusesAHeaderWithoutTables(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "history.db")
	raw := rawSQL(t, path)
	if _, err := raw.Exec(fmt.Sprintf("PRAGMA user_version = %d", len(migrations))); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	before, _ := os.ReadFile(path)
	_, err := Open(path)
	if !errors.Is(err, ErrNoTables) || !strings.HasPrefix(err.Error(), path+" has a schema version but no tables") ||
		!strings.Contains(err.Error(), `"When storage fails"`) {
		t.Fatalf("opening a header without tables: %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Error("the file was changed")
	}
}
