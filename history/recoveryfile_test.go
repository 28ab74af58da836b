package history

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/history/stored"
	"parley/internal/chat"
)

// spilled leaves, as a run writer does when the database refuses a reply, a run of db whose
// text went to the recovery file in pieces, with its end, and closes db: its records are then
// a gone handle's. It returns the run, the pieces and the recovery file's path.
func spilled(t *testing.T, db *DB, pieces ...string) (stored.Receipt, string) {
	t.Helper()
	r := post(t, db, newSession(t, db).ID, "tell me a story")
	if err := db.StartRun(r.RunID); err != nil {
		t.Fatal(err)
	}
	rec := recoveryRecord{DB: db.path, Owner: db.token, Run: r.RunID, Cause: "the disk is full", At: time.Now()}
	var where string
	for _, p := range pieces {
		rec.Kind, rec.Content = "text", p
		var err error
		if where, err = db.recovery.append(rec); err != nil {
			t.Fatal(err)
		}
	}
	rec.Kind, rec.Content = "end", ""
	rec.End = &recoveredEnd{Status: chat.StatusSucceeded, Attempts: 1, FinishReason: "stop"}
	if _, err := db.recovery.append(rec); err != nil {
		t.Fatal(err)
	}
	db.Close()
	return r, where
}

// recoveryLines returns the lines of the recovery file at path, each with its newline.
func recoveryLines(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	return lines[:len(lines)-1]
}

func writeLines(t *testing.T, path string, lines ...[]byte) {
	t.Helper()
	if err := os.WriteFile(path, bytes.Join(lines, nil), 0o600); err != nil {
		t.Fatal(err)
	}
}

// checkIncomplete checks that run id came back interrupted with text, saying what is missing
// and where the recovery file was kept, and that the kept file holds the lines it had.
func checkIncomplete(t *testing.T, db *DB, id int64, text, missing string, lines [][]byte) {
	t.Helper()
	if got := replyText(t, db, id); got != text {
		t.Errorf("reply = %q, want what could be read, %q", got, text)
	}
	run, err := db.Run(id)
	if err != nil {
		t.Fatal(err)
	}
	kept := db.recovery.beside + ".kept-1"
	if run.Status != chat.StatusInterrupted || run.Retry == nil || !strings.Contains(run.Retry.Message, missing) ||
		!strings.Contains(run.Retry.Message, "the file is kept as "+kept) {
		t.Errorf("run %+v (%+v); want interrupted, saying %q and that the file is kept as %s", run, run.Retry, missing, kept)
	}
	if got, err := os.ReadFile(kept); err != nil || !bytes.Equal(got, bytes.Join(lines, nil)) {
		t.Errorf("kept file: %v, %d bytes; want the %d bytes folded back", err, len(got), len(bytes.Join(lines, nil)))
	}
	if _, err := os.Stat(db.recovery.beside); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the recovery file itself is left to be folded again: %v", err)
	}
}

// A recovery file folded back applies each line once, however often it was written, and
// what it could not read is never stored as a whole reply: what could be read is, the run
// interrupted saying what is missing, and the file kept.
func TestRecoveryFileFoldsWhatItCanRead(t *testing.T) {
	t.Parallel()
	pieces := []string{"Once upon a time, ", "a \"database\" filled up\n", "and the story went on ", "to its end."}
	t.Run("duplicated lines", func(t *testing.T) {
		t.Parallel()
		db := openTemp(t)
		r, where := spilled(t, db, pieces...)
		lines := recoveryLines(t, where)
		writeLines(t, where, append(append(lines[:len(lines):len(lines)], lines[1:3]...), lines...)...)
		again := openPath(t, db.path)
		if got := replyText(t, again, r.RunID); got != strings.Join(pieces, "") {
			t.Errorf("reply = %q, want each piece once", got)
		}
		if run, _ := again.Run(r.RunID); run.Status != chat.StatusSucceeded {
			t.Errorf("run %s, want succeeded as it ended", run.Status)
		}
		if _, err := os.Stat(where); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("recovery file left after folding it all back: %v", err)
		}
	})
	t.Run("a damaged line", func(t *testing.T) {
		t.Parallel()
		db := openTemp(t)
		r, where := spilled(t, db, pieces...)
		lines := recoveryLines(t, where)
		damaged := bytes.Clone(lines[1])
		damaged[bytes.Index(damaged, []byte("filled"))] = 'k' // "killed": the checksum no longer matches
		writeLines(t, where, lines[0], damaged, lines[2], lines[3], lines[4])
		again := openPath(t, db.path)
		checkIncomplete(t, again, r.RunID, pieces[0]+pieces[2]+pieces[3],
			"a piece of it could not be read, 1 line of the file could not be read", [][]byte{lines[0], damaged, lines[2], lines[3], lines[4]})
	})
	t.Run("a cut last line", func(t *testing.T) {
		t.Parallel()
		db := openTemp(t)
		r, where := spilled(t, db, pieces...)
		lines := recoveryLines(t, where)
		// The process died writing the third piece: no end, and the line stops mid-text.
		cut := lines[2][:bytes.Index(lines[2], []byte("went"))+2]
		writeLines(t, where, lines[0], lines[1], cut)
		again := openPath(t, db.path)
		checkIncomplete(t, again, r.RunID, pieces[0]+pieces[1]+"and the story we", "its last piece was cut short",
			[][]byte{lines[0], lines[1], cut})
	})
	t.Run("a lost line", func(t *testing.T) {
		t.Parallel()
		db := openTemp(t)
		r, where := spilled(t, db, pieces...)
		lines := recoveryLines(t, where)
		writeLines(t, where, lines[0], lines[2], lines[3], lines[4])
		again := openPath(t, db.path)
		checkIncomplete(t, again, r.RunID, pieces[0]+pieces[2]+pieces[3], "a piece of it could not be read",
			[][]byte{lines[0], lines[2], lines[3], lines[4]})
	})
}

// asRoot skips a test that needs to make files another user owns.
func asRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("making a file another user owns needs root")
	}
}

// A recovery file someone else made where parley's goes, or a symbolic link planted there, is
// neither written nor read: the reply goes to the fallback instead, or, when that is refused
// too, the run says the text could not be kept; opening the database names the file and the
// fix, and folds nothing of it.
func TestRecoveryFileOfAnotherUserIsRefused(t *testing.T) {
	t.Parallel()
	asRoot(t)
	db := openTemp(t)
	planted := db.recovery.beside
	forged := recoveryRecord{DB: db.path, Owner: "00", Kind: "post", Ref: "1", Content: "a forged operator message", At: time.Now()}
	line, _ := encodeLine(forged)
	writeLines(t, planted, line)
	if err := os.Chown(planted, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(db.recovery.fallback) })
	where, err := db.recovery.append(recoveryRecord{DB: db.path, Owner: db.token, Kind: "text", Run: 1, Content: "secret"})
	if err != nil || where != db.recovery.fallback {
		t.Fatalf("appended to %q, %v; want the fallback, %s", where, err, db.recovery.fallback)
	}
	if data, _ := os.ReadFile(planted); !bytes.Equal(data, line) {
		t.Errorf("another user's file was written: %q", data)
	}
	path := db.path
	db.Close()
	_, err = Open(path)
	if err == nil || !strings.Contains(err.Error(), planted+" belongs to uid 65534, not you") ||
		!strings.Contains(err.Error(), "remove it") || strings.Count(err.Error(), planted) != 1 {
		t.Fatalf("opening beside another user's recovery file: %v; want it named once, with the fix", err)
	}
}

func TestRecoveryFileSymlinkIsNotFollowed(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	victim := filepath.Join(t.TempDir(), "victim")
	writeLines(t, victim, []byte("the victim's own\n"))
	if err := os.Symlink(victim, db.recovery.beside); err != nil {
		t.Fatal(err)
	}
	// The fallback is planted too: nowhere is left to write.
	if err := ownDir(filepath.Dir(db.recovery.fallback)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, db.recovery.fallback); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(db.recovery.fallback) })
	_, err := db.recovery.append(recoveryRecord{DB: db.path, Owner: db.token, Kind: "text", Run: 1, Content: "secret"})
	if err == nil || !strings.Contains(err.Error(), db.recovery.beside+" is a symbolic link") ||
		!strings.Contains(err.Error(), db.recovery.fallback+" is a symbolic link") {
		t.Fatalf("appending through planted links: %v; want both refused, named", err)
	}
	if data, _ := os.ReadFile(victim); string(data) != "the victim's own\n" {
		t.Errorf("the link was followed: %q", data)
	}
}

// The fallback's folder under the temporary directory is the user's own: one someone else made
// first, or that others can write, is refused.
func TestRecoveryFallbackFolderOfAnotherUser(t *testing.T) {
	t.Parallel()
	asRoot(t)
	dir := filepath.Join(t.TempDir(), "parley-0")
	if err := ownDir(dir); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(dir); info.Mode().Perm() != 0o700 {
		t.Errorf("made %s mode %o, want 700", dir, info.Mode().Perm())
	}
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := ownDir(dir); err == nil || !strings.Contains(err.Error(), dir+" belongs to uid 65534, not you") {
		t.Errorf("another user's folder: %v", err)
	}
	os.Chown(dir, 0, 0)
	os.Chmod(dir, 0o777)
	if err := ownDir(dir); err == nil || !strings.Contains(err.Error(), "can be written by others") {
		t.Errorf("a folder anyone can write: %v", err)
	}
}
