package history

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Fault is why storing (or opening) the database failed, in the operator's words.
type Fault int

// The kinds of storage failure, each with its own fix.
const (
	FaultOther    Fault = iota // anything else: the error says what
	FaultBusy                  // another parley holds the write lock
	FaultFull                  // the disk (or a quota on it) is full
	FaultReadOnly              // the file, its directory or the mount is read-only
	FaultDamaged               // the file is not a database parley can read
	FaultIO                    // the disk failed to read or write
	FaultGone                  // the file was replaced or deleted while parley had it open
)

// FaultOf says which kind of storage failure err is.
func FaultOf(err error) Fault {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return FaultBusy
		case sqlite3.SQLITE_FULL:
			return FaultFull
		case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM:
			return FaultReadOnly
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return FaultDamaged
		case sqlite3.SQLITE_IOERR:
			// SQLite grows the -shm file by writing to it, and says only SHMSIZE when that
			// fails: on a disk that works, that is a full one (opening a database in WAL mode
			// on a full disk fails so).
			if se.Code() == sqlite3.SQLITE_IOERR_SHMSIZE {
				return FaultFull
			}
			return FaultIO
		case sqlite3.SQLITE_CANTOPEN:
			return FaultReadOnly
		}
	}
	switch {
	case errors.Is(err, ErrReplaced), errors.Is(err, ErrDeleted):
		return FaultGone
	case errors.Is(err, ErrNotDatabase):
		return FaultDamaged
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return FaultFull
	case errors.Is(err, syscall.EROFS), errors.Is(err, os.ErrPermission):
		return FaultReadOnly
	case errors.Is(err, syscall.EIO):
		return FaultIO
	}
	return FaultOther
}

// Transient reports whether waiting can cure f: another parley will let go of the lock.
func (f Fault) Transient() bool { return f == FaultBusy }

// StorageError is a failure to store in, or open, the database at Path, said in plain words
// with its fix.
type StorageError struct {
	Path  string
	Fault Fault
	Err   error
}

func (e *StorageError) Error() string {
	switch e.Fault {
	case FaultBusy:
		return fmt.Sprintf("another parley is writing %s; try again", e.Path)
	case FaultFull:
		return fmt.Sprintf("the disk is full (%s): free space, or set PARLEY_HOME to a directory on another disk", e.Path)
	case FaultReadOnly:
		return fmt.Sprintf("%s is read-only: reading works; to store, make it writable or set PARLEY_HOME to another directory", e.Path)
	case FaultDamaged:
		return fmt.Sprintf("%s is damaged (%v): keep what can be read of it as docs/storage.md says (sqlite3's .recover, "+
			"or .dump where it has no .recover), move the file aside, or set PARLEY_HOME to another directory", e.Path, e.Err)
	case FaultGone:
		if errors.Is(e.Err, ErrDeleted) {
			return fmt.Sprintf("%s was deleted while parley had it open: nothing more is stored in it; start parley again for a new one", e.Path)
		}
		return fmt.Sprintf("%s was replaced while parley had it open (a backup restored, a sync tool): nothing more is stored "+
			"in the file parley opened; start parley again to use the one there now", e.Path)
	case FaultIO:
		return fmt.Sprintf("the disk failed reading or writing %s (%v): check the disk, or set PARLEY_HOME to another directory", e.Path, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *StorageError) Unwrap() error { return e.Err }

// storageError names the database and the fix for err, a failure to store or open it; nil
// stays nil, and an error that already says so is kept.
func (db *DB) storageError(err error) error {
	if cause := db.readOnly.Load(); cause != nil && FaultOf(err) == FaultReadOnly {
		err = *cause // opened to read because of it: the write fails for the same cause
	}
	return describe(db.path, err)
}

// readError names the database and the fix for err, a failure to read it, when the cause is
// the storage (a damaged file, a failing disk); any other error is kept as it is.
func (db *DB) readError(err error) error {
	if FaultOf(err) == FaultOther {
		return err
	}
	return db.storageError(err)
}

func describe(path string, err error) error {
	var se *StorageError
	if err == nil || errors.As(err, &se) {
		return err
	}
	return &StorageError{Path: path, Fault: FaultOf(err), Err: err}
}
