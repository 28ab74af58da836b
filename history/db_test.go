package history

import (
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"parley/internal/chat"
)

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestOpenCreatesPrivateFiles(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "home", "parley")
	path := filepath.Join(dir, "history.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.Path() != path {
		t.Errorf("Path() = %q, want %q", db.Path(), path)
	}
	// A write makes sure the WAL and its index exist.
	post(t, db, newSession(t, db).ID, "hello")

	lock := lockPath(path, db.token)
	for _, c := range []struct {
		path string
		want os.FileMode
	}{
		{dir, 0o700},
		{path, 0o600},
		{path + "-wal", 0o600},
		{path + "-shm", 0o600},
		{ownersDir(path), 0o700},
		{lock, 0o600},
	} {
		if got := mode(t, c.path); got != c.want {
			t.Errorf("mode of %s = %v, want %v", c.path, got, c.want)
		}
	}

	var journal string
	if err := db.pool().QueryRow("PRAGMA journal_mode").Scan(&journal); err != nil || journal != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", journal, err)
	}
	var fk, timeout int
	if err := db.pool().QueryRow("PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		t.Errorf("foreign_keys = %d, %v; want 1", fk, err)
	}
	if err := db.pool().QueryRow("PRAGMA busy_timeout").Scan(&timeout); err != nil || timeout != 5000 {
		t.Errorf("busy_timeout = %d, %v; want 5000", timeout, err)
	}

	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(lock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file after Close: %v, want it gone", err)
	}
	if err := db.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := db.StartRun(1); err == nil {
		t.Error("StartRun on a closed database succeeded")
	}
}

func TestOpenEmptyFileIsNewDatabase(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "history.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := newSession(t, db)
	post(t, db, s.ID, "first")
	var version int
	if err := db.pool().QueryRow("PRAGMA user_version").Scan(&version); err != nil || version != len(migrations) {
		t.Errorf("user_version = %d, %v; want %d", version, err, len(migrations))
	}
}

func TestReopenKeepsData(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	exchange(t, db, s.ID, "remember me", "I will")
	path := db.Path()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.Transcript(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Content != "remember me" || got[1].Content != "I will" || got[1].Status != chat.StatusSucceeded {
		t.Errorf("transcript after reopening = %+v", got)
	}
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func assertMissing(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists (%v), want it never created", p, err)
		}
	}
}

// lockFiles lists the lock files of the database at path.
func lockFiles(t *testing.T, path string) []string {
	t.Helper()
	entries, err := os.ReadDir(ownersDir(path))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// older is what an older parley left at path, if anything: an older version of the
		// schema in WAL mode, with or without a message.
		older func(t *testing.T, path string)
		// running keeps the newer parley's connection open: the newer version lives only in
		// the WAL while its writer has the file open, so the header on disk still shows the
		// old one.
		running bool
	}{
		{"rollback journal", nil, false},
		{"WAL database closed cleanly", func(t *testing.T, path string) {
			db, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			post(t, db, newSession(t, db).ID, "old message")
			db.Close()
		}, false},
		{"newer parley still running", func(t *testing.T, path string) {
			db, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			db.Close()
		}, true},
	}
	// newer writes a database from a newer parley at path, keeping its connection open while
	// running.
	newer := func(t *testing.T, path string, running bool) {
		r := rawSQL(t, path)
		r.SetMaxOpenConns(1)
		if _, err := r.Exec("CREATE TABLE future (x); PRAGMA user_version = 99"); err != nil {
			t.Fatal(err)
		}
		if !running {
			r.Close()
		} else if _, err := os.Stat(path + "-wal"); err != nil {
			t.Fatalf("want the newer version in the WAL: %v", err)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "history.db")
			if c.older != nil {
				c.older(t, path)
			}
			newer(t, path, c.running)
			_, walErr := os.Stat(path + "-wal")
			hadWAL := walErr == nil
			var walSum [32]byte
			if hadWAL {
				walSum = fileSum(t, path+"-wal")
			}
			sum := fileSum(t, path)
			locks := lockFiles(t, path)

			refusedOpen(t, path, ErrNewerSchema, "upgrade parley or set PARLEY_HOME to another directory")
			if fileSum(t, path) != sum {
				t.Error("database file changed")
			}
			if hadWAL {
				if fileSum(t, path+"-wal") != walSum {
					t.Error("WAL file changed")
				}
			} else {
				assertMissing(t, path+"-wal", path+"-shm")
			}
			if got := lockFiles(t, path); len(got) != len(locks) {
				t.Errorf("lock files %v, want %v", got, locks)
			}
		})
	}
}

// refusedOpen checks that Open refuses path with the error want, naming the file and the fix.
func refusedOpen(t *testing.T, path string, want error, fix string) {
	t.Helper()
	db, err := Open(path)
	if err == nil {
		db.Close()
		t.Fatalf("Open succeeded, want %v", want)
	}
	if !errors.Is(err, want) {
		t.Fatalf("Open error = %v, want %v", err, want)
	}
	if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, fix) {
		t.Errorf("error %q does not name the file and the fix (%s)", msg, fix)
	}
}

func TestOpenRefusesNonDatabase(t *testing.T) {
	t.Parallel()
	for name, content := range map[string]string{
		"text":         "milk\neggs\nflour\n",
		"short":        "SQLite",
		"magic only":   "SQLite format 3\x00" + strings.Repeat("\xff", 200),
		"long garbage": strings.Repeat("not a database ", 400),
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "history.db")
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			sum := fileSum(t, path)
			refusedOpen(t, path, ErrNotDatabase, "PARLEY_HOME")
			if fileSum(t, path) != sum {
				t.Error("file changed")
			}
			if got := mode(t, path); got != 0o644 {
				t.Errorf("mode changed to %v", got)
			}
			assertMissing(t, path+"-wal", path+"-shm", path+"-journal", ownersDir(path))
		})
	}
}

func TestOpenPathWithURICharacters(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "odd ?#% name")
	path := filepath.Join(dir, "history.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	post(t, db, newSession(t, db).ID, "hello")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := "history.db history.db-shm history.db-wal history.db.owners"
	if strings.Join(names, " ") != want {
		t.Errorf("files in %s: %v, want %s", dir, names, want)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Errorf("database file: %v, %v", fi, err)
	}
}

// Parleys started together on a new home all open its database: the switch to WAL mode, which
// SQLite does not wait for, is tried again while another holds the lock. Five rounds of twenty:
// a migration that does not read the version again inside its transaction fails every round.
func TestOpenTogetherOnANewDatabase(t *testing.T) {
	t.Parallel()
	for round := range 5 {
		path := filepath.Join(t.TempDir(), "history.db")
		var wg sync.WaitGroup
		errs := make(chan error, 20)
		for range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				db, err := Open(path)
				if err == nil {
					err = db.Close()
				}
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}
