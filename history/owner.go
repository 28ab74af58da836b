package history

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"parley/history/stored"
	"parley/internal/chat"
)

// ownersDir is where the lock files of the database at dbPath live.
func ownersDir(dbPath string) string { return dbPath + ".owners" }

// lockPath is the lock file of owner token.
func lockPath(dbPath, token string) string {
	return filepath.Join(ownersDir(dbPath), token+".lock")
}

// lockOwner creates a lock file under a fresh random token and takes an exclusive flock on
// it, held until Close. The kernel drops the lock when the process dies, which is how another
// process tells a crashed run from a live one.
func lockOwner(dbPath string) (token string, f *os.File, err error) {
	if err := os.MkdirAll(ownersDir(dbPath), 0o700); err != nil {
		return "", nil, err
	}
	b := make([]byte, 8)
	rand.Read(b)
	token = hex.EncodeToString(b)
	f, err = os.OpenFile(lockPath(dbPath, token), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", nil, fmt.Errorf("locking %s: %w", f.Name(), err)
	}
	return token, f, nil
}

// releaseLock deletes a lock file, then drops its lock. Deleting first means no other process
// can find the file unlocked while this one still owns it.
func releaseLock(f *os.File) error {
	err := os.Remove(f.Name())
	return errors.Join(err, f.Close())
}

// ownerAlive reports whether the handle owner of the database at dbPath is still open, in
// this process or another: its lock file is held. alive caches the answers of one pass.
func ownerAlive(dbPath, owner string, alive map[string]bool) bool {
	if a, ok := alive[owner]; ok {
		return a
	}
	a := false
	if _, err := hex.DecodeString(owner); err == nil && owner != "" {
		if f, err := os.OpenFile(lockPath(dbPath, owner), os.O_RDWR, 0); err == nil {
			a = errors.Is(syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB), syscall.EWOULDBLOCK)
			if !a {
				syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			}
			f.Close()
		}
	}
	alive[owner] = a
	return a
}

// removeDeadLocks deletes the lock files of handles that are gone: a killed parley leaves its
// file behind, and recovery finds no run of it to clean up after.
func removeDeadLocks(dbPath string) {
	entries, err := os.ReadDir(ownersDir(dbPath))
	if err != nil {
		return
	}
	alive := map[string]bool{}
	for _, e := range entries {
		owner, ok := strings.CutSuffix(e.Name(), ".lock")
		// A file just made may not be locked yet (lockOwner creates, then locks it).
		if info, err := e.Info(); !ok || err != nil || time.Since(info.ModTime()) < lockGrace || ownerAlive(dbPath, owner, alive) {
			continue
		}
		os.Remove(lockPath(dbPath, owner))
	}
}

// lockGrace is how old a lock file must be for removeDeadLocks to take an unlocked one for a
// dead handle's.
const lockGrace = time.Minute

// queuedInterruptedMessage explains a run whose process died before it was sent.
const queuedInterruptedMessage = "parley stopped before this reply was requested"

// interruptedClass is stored on a run whose process died while it streamed.
var interruptedClass = chat.NewClassification(chat.Interrupted, "parley stopped while this reply was streaming")

// RecoverInterrupted marks interrupted every running or queued run whose owner is gone, keeping
// the text it had streamed, and returns their ids in ascending order. A run whose owner still holds its
// lock, in this process or another, is left alone. Open calls it. It also folds the text of runs
// that ended without it being folded (foldEnded).
func (db *DB) RecoverInterrupted() ([]int64, error) {
	db.foldEnded()
	owners, err := column[string](db.pool().Query(`SELECT DISTINCT owner FROM runs WHERE status IN ('running', 'queued')`))
	if err != nil {
		return nil, err
	}

	var recovered []int64
	for _, o := range owners {
		if o == db.token {
			continue
		}
		ids, err := db.recoverOwner(o)
		if err != nil {
			return recovered, err
		}
		recovered = append(recovered, ids...)
	}
	slices.Sort(recovered)
	return recovered, nil
}

// recoverOwner interrupts the running runs of owner if its lock can be taken, then removes
// its stale lock file.
func (db *DB) recoverOwner(owner string) ([]int64, error) {
	path := lockPath(db.path, owner)
	// A token that is not a plain hex name cannot have come from lockOwner; never let it steer
	// a path. Such a run has no live owner.
	if _, err := hex.DecodeString(owner); err != nil || owner == "" {
		return db.interruptOwner(owner)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	switch {
	case errors.Is(err, os.ErrNotExist):
		// Its owner closed (or its lock file was cleaned up) without finishing the run.
		return db.interruptOwner(owner)
	case err != nil:
		return nil, err
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, nil // the owner is alive
	}
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	ids, err := db.interruptOwner(owner)
	if err != nil {
		return nil, err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return ids, err
	}
	return ids, nil
}

// interruptOwner marks interrupted the running and queued runs of owner, keeping the text
// they streamed, and ends the calls they left pending as ones that may have run.
func (db *DB) interruptOwner(owner string) (ids []int64, err error) {
	c, now := interruptedClass, nanos(db.clock.Now())
	err = db.write(func(tx *sql.Tx) error {
		ids, err = column[int64](tx.Query(`
			UPDATE runs SET status = 'interrupted', finished_at = ?,
				retryable = ?, retry_class = ?, retry_after_until = NULL, retry_label = ?,
				retry_message = CASE status WHEN 'queued' THEN ? ELSE ? END
			WHERE status IN ('running', 'queued') AND owner = ?
			RETURNING id`,
			now, c.Retryable, string(c.Class), c.Label, queuedInterruptedMessage, c.Message, owner))
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := foldChunks(tx, id); err != nil {
				return err
			}
			if err := endPendingCalls(tx, id, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// endPendingCalls ends the calls run left pending when its process died: failed, with the
// result that they may have run, as Resume sends them. None is run again.
func endPendingCalls(tx *sql.Tx, run, now int64) error {
	_, err := tx.Exec(`UPDATE tool_calls SET status = 'failed', result = ?, finished_at = ? WHERE run_id = ? AND status = 'pending'`,
		stored.PendingText, now, run)
	return err
}
