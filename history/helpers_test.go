package history

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"parley/history/stored"
	"parley/internal/chat"
)

// openTemp opens a new database in a temporary directory, closed when the test ends. Its file
// is a copy of one Open created and migrated once for every test here: under the race
// detector migrating costs a fifth of a second each time, and what creating and migrating do
// is tested where a test opens a path of its own.
func openTemp(t *testing.T) *DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "history.db")
	if err := os.WriteFile(path, migratedFile(t), 0o600); err != nil {
		t.Fatal(err)
	}
	return openPath(t, path)
}

// migrated is the file of a new database as Open leaves it once closed, made on first use.
var migrated struct {
	once sync.Once
	file []byte
	err  error
}

// migratedFile returns the file of a new database, created and migrated by Open and closed.
func migratedFile(t *testing.T) []byte {
	t.Helper()
	migrated.once.Do(func() {
		dir, err := os.MkdirTemp("", "parley-history-")
		if err != nil {
			migrated.err = err
			return
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "history.db")
		db, err := Open(path)
		if err == nil {
			err = db.Close()
		}
		if err == nil {
			migrated.file, err = os.ReadFile(path)
		}
		migrated.err = err
	})
	if migrated.err != nil {
		t.Fatalf("creating the database every test copies: %v", migrated.err)
	}
	return migrated.file
}

// openPath opens the database at path, closed when the test ends.
func openPath(t *testing.T, path string) *DB {
	t.Helper()
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// openCopy opens a copy of the database file name (testdata/v1.db…), migrated, closed when
// the test ends.
func openCopy(t *testing.T, name string) *DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "history.db")
	copyFile(t, name, path)
	return openPath(t, path)
}

// onlySession returns the one session of db, failing the test unless there is exactly one.
func onlySession(t *testing.T, db *DB) stored.Session {
	t.Helper()
	list, err := db.Sessions()
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions %+v, %v", list, err)
	}
	return list[0]
}

// crash leaves db as a parley killed mid-run leaves it (the kernel drops its lock, nothing is
// finished) and opens the database as the next parley does, recovering; closed when the test
// ends.
func crash(t *testing.T, db *DB) *DB {
	t.Helper()
	db.lock.Close()
	db.lock = nil
	return openPath(t, db.Path())
}

// endpointHandles opens a new database and a second handle on it, as two parleys would, with
// the endpoint they share what they remember of and the time it spoke.
func endpointHandles(t *testing.T) (db, other *DB, ep chat.EndpointKey, now time.Time) {
	t.Helper()
	db = openTemp(t)
	return db, openAgain(t, db), chat.EndpointKey{BaseURL: "https://api.example.com/v1", Model: "gpt-4o", KeyEnv: "OPENAI_API_KEY"},
		time.Date(2026, 3, 1, 14, 2, 0, 0, time.UTC)
}

// openSession opens a new database with one new session in it.
func openSession(t *testing.T) (*DB, stored.Session) {
	t.Helper()
	db := openTemp(t)
	return db, newSession(t, db)
}

// openAgain opens a second handle on the database of db, as a second parley would.
func openAgain(t *testing.T, db *DB) *DB {
	t.Helper()
	return openPath(t, db.Path())
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

// holdWriteLock takes the write lock of the database at path on a bare connection, as another
// parley in a write transaction does; release, or the end of the test, gives it back.
func holdWriteLock(t *testing.T, path string) (release func()) {
	t.Helper()
	ctx := context.Background()
	conn, err := rawSQL(t, path).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		conn.Close()
		t.Fatal(err)
	}
	release = sync.OnceFunc(func() {
		conn.ExecContext(ctx, "ROLLBACK")
		conn.Close()
	})
	t.Cleanup(release)
	return release
}

// newSession creates a session or fails the test.
func newSession(t *testing.T, db *DB) stored.Session {
	t.Helper()
	s, err := db.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// post posts content or fails the test.
func post(t *testing.T, db *DB, sessionID, content string) stored.Receipt {
	t.Helper()
	r, err := db.Post(sessionID, content, "test-model", false)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// exchange posts question to session sessionID, answers it with reply and returns its receipt.
func exchange(t *testing.T, db *DB, sessionID, question, reply string) stored.Receipt {
	t.Helper()
	r := post(t, db, sessionID, question)
	answer(t, db, r, reply)
	return r
}

// exchanges posts n questions to session sessionID ("question 1"…), answers each ("answer 1"…)
// and returns their receipts.
func exchanges(t *testing.T, db *DB, sessionID string, n int) []stored.Receipt {
	t.Helper()
	var rs []stored.Receipt
	for i := range n {
		rs = append(rs, exchange(t, db, sessionID, fmt.Sprintf("question %d", i+1), fmt.Sprintf("answer %d", i+1)))
	}
	return rs
}

// regenerate starts a new reply to the live operator message anchorID or fails the test.
func regenerate(t *testing.T, db *DB, anchorID int64) stored.Receipt {
	t.Helper()
	r, err := db.Regenerate(anchorID, "test-model", false)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// answer runs r to success with reply text.
func answer(t *testing.T, db *DB, r stored.Receipt, text string) {
	t.Helper()
	runTo(t, db, r, text, stored.Finish{Status: chat.StatusSucceeded, Attempts: 1})
}

// runTo starts run r, streams text into its reply and ends it as fin says.
func runTo(t *testing.T, db *DB, r stored.Receipt, text string, fin stored.Finish) {
	t.Helper()
	streaming(t, db, r, text)
	if err := db.FinishRun(r.RunID, fin); err != nil {
		t.Fatal(err)
	}
}

// streaming starts run r and streams text into its reply, leaving it running.
func streaming(t *testing.T, db *DB, r stored.Receipt, text string) {
	t.Helper()
	if err := db.StartRun(r.RunID); err != nil {
		t.Fatal(err)
	}
	if err := db.AppendReply(r.RunID, text, ""); err != nil {
		t.Fatal(err)
	}
}
