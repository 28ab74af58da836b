// Package history stores parley's sessions, messages and runs in an embedded SQLite database,
// so that nothing the operator typed or the model sent is lost, even when parley crashes.
//
// Operator messages are immutable: SQL triggers refuse to update or delete them. A reply grows
// as its run streams. Regenerating supersedes messages by recording them in a table of their
// own, never by changing them. Several parley processes may share one database; each open
// handle holds a lock file so that the others can tell a crashed run from a live one.
package history

import (
	"bytes"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"parley/internal/chat"
)

var (
	// ErrNewerSchema means the database was written by a newer parley, whose schema this build
	// does not know. The file is left untouched.
	ErrNewerSchema = errors.New("database was written by a newer parley")
	// ErrNotDatabase means the file exists but is not an SQLite database. It is left untouched.
	ErrNotDatabase = errors.New("not an SQLite database")
	// ErrNoTables means the file has a parley schema version but no tables. It is left untouched.
	ErrNoTables = errors.New("has a schema version but no tables (what a failed sqlite3 \".recover\" leaves)")
	// ErrNotFound means the session, message or run asked for does not exist.
	ErrNotFound = errors.New("not found")
	// ErrAmbiguous means a session id prefix matches more than one session: an
	// *AmbiguousError says how many, and is also an ErrNotFound.
	ErrAmbiguous = errors.New("matches more than one session")
	// ErrTransition means a run was asked to change state in a way its life cycle forbids, or
	// by a handle that does not own it.
	ErrTransition = errors.New("run state change not allowed")
)

// sqliteHeader opens every SQLite database file.
var sqliteHeader = []byte("SQLite format 3\x00")

// DB is an open history database. Its methods are safe for concurrent use.
type DB struct {
	// sql is the SQLite handle, behind pool(): a handle opened read-only on a full disk swaps
	// in a writable one once there is room (upgrade).
	sql  atomic.Pointer[sql.DB]
	path string
	// readOnly is why the database could be opened only to read (a read-only file, directory
	// or mount, a full disk), nil when it can be written: every write fails with a
	// StorageError saying so. After a full disk, the next write tries again (upgrade), which
	// upgrading keeps to one at a time.
	readOnly  atomic.Pointer[error]
	upgrading sync.Mutex
	// retired and retiredStmt are the read-only pool and its statement an upgrade replaced.
	retired     *sql.DB
	retiredStmt *sql.Stmt
	// closed is set once Close begins: a write after it fails as the closed pool says, and
	// says nothing of the file's path.
	closed atomic.Bool
	// token names this handle as the owner of the runs it starts; lock holds its lock file.
	// A read-only handle has neither: it starts no run.
	token string
	lock  *os.File
	// file is the database file a writable handle opened, opened what it was then (its
	// device and inode), and pin a connection opened with it: held.go checks the file is
	// still the one at the path, and gone says why not.
	file   *os.File
	opened os.FileInfo
	pin    *heldConn
	gone   atomic.Pointer[error]
	// appendChunk is AppendReply's statement, prepared once: a streaming reply runs it every
	// 250 ms, and parsing it each time would cost more than the write.
	appendChunk *sql.Stmt
	// takeOvers holds the ids of Retry's runs that have had no output yet: their first text
	// takes the place of the reply they retry (see Retry).
	takeOvers sync.Map
	// recovery takes what the database could not; unsaved holds why, by run id, for the runs
	// PostToRecovery kept there.
	recovery *recovery
	unsaved  sync.Map
	// log is where storage trouble that does not stop a run is logged (SetLogger).
	log *slog.Logger
	// clock tells the time every row is stored with (WithClock).
	clock chat.Clock
	// interactive is set on the chat screen's handle (SetInteractive).
	interactive atomic.Bool
	// folding is held to read by Record from a run's terminal event until its reply's text
	// is folded (or the end is found not stored), and by Close to write: Close waits for the
	// ends being stored and the folds under way, and a fold after it fails, leaving the text
	// for the next open.
	folding sync.RWMutex
	// closing is closed when Close begins: a run whose end is stored but whose reader went
	// away (a program that quit without reading it) folds its text then rather than hold
	// Close forever.
	closing     chan struct{}
	closingOnce sync.Once
}

// Open opens the history database at path, creating it (0600, in a 0700 directory) when it is
// missing or empty, migrating it to this build's schema, folding back what recovery files kept
// and marking interrupted any run left running by a parley process that is gone. A file that is
// not an SQLite database, or one written by a newer parley, is refused before anything is
// written to it.
//
// Opening writes only when it must: a database at this build's schema, with nothing to recover,
// is opened without a write, so it opens while another parley writes. One that cannot be
// written (a read-only file, directory or mount) opens read-only; one whose migration or
// recovery is held back by another parley's write lock opens as it is, and the next open does
// them.
func Open(path string, opts ...Option) (*DB, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.clock == nil {
		o.clock = chat.SystemClock{}
	}
	path, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if err := checkPlace(path); err != nil {
		return nil, err
	}
	if err := checkFile(path); err != nil {
		return nil, err
	}
	db, err := openWritable(path, o.clock)
	switch FaultOf(err) {
	case FaultReadOnly, FaultFull:
		// Reading works where writing does not: a read-only mount, a full disk. A database not
		// created yet (or only begun: a full disk can stop it after its first page) reads as the
		// empty one it would be. When it cannot be read either, why it cannot be written is what
		// to fix.
		cause := err
		db, err = openReadOnly(path, o.clock)
		if info, statErr := os.Stat(path); errors.Is(err, errNoSchema) || err != nil && (os.IsNotExist(statErr) || statErr == nil && info.Size() == 0) {
			db, err = openEmpty(path, o.clock)
		}
		if err != nil {
			return nil, describe(path, cause)
		}
		db.readOnly.Store(&cause)
	}
	if err != nil {
		return nil, describe(path, fileError(path, err))
	}
	if db.appendChunk, err = db.pool().Prepare(appendChunkSQL); err != nil {
		db.Close()
		return nil, describe(path, err)
	}
	return db, nil
}

// openWritable opens the database to read and write: created if missing, set up, with a lock
// file of its own, and what recovery files kept folded back.
func openWritable(path string, clock chat.Clock) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	// Create the file ourselves so its mode is 0600; SQLite gives -wal and -shm the same mode.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	db, err := openSQL(path, "_txlock=immediate", clock)
	if err != nil {
		f.Close()
		return nil, err
	}
	db.file = f
	if db.opened, err = f.Stat(); err != nil {
		db.Close()
		return nil, err
	}
	if err := db.setUp(); err != nil {
		db.Close()
		return nil, err
	}
	if db.pin, err = pinFile(path); err != nil {
		db.Close()
		return nil, err
	}
	if db.token, db.lock, err = lockOwner(path); err != nil {
		db.Close()
		return nil, err
	}
	removeDeadLocks(path)
	// Both write only when there is something to do; held back by another parley's lock,
	// they wait for the next open rather than keep this one from reading.
	if err := db.foldRecovery(); err != nil {
		db.Close()
		return nil, err
	}
	if _, err := db.RecoverInterrupted(); err != nil && !FaultOf(err).Transient() {
		db.Close()
		return nil, err
	}
	return db, nil
}

// openReadOnly opens the database only to read. A database in WAL mode needs its -shm file to
// be read; where it cannot be created (a read-only directory or mount), the file is read as
// immutable: nothing else can be writing it there.
func openReadOnly(path string, clock chat.Clock) (*DB, error) {
	var last error
	for _, mode := range []string{"mode=ro", "immutable=1"} {
		db, err := openSQL(path, mode, clock)
		if err != nil {
			last = err
			continue
		}
		var version int
		err = db.pool().QueryRow("PRAGMA user_version").Scan(&version)
		switch {
		case err == nil && version == 0:
			err = errNoSchema
		case err == nil && version != len(migrations):
			err = fmt.Errorf("the database is at schema %d, this parley's is %d, and it cannot be migrated: %w",
				version, len(migrations), syscall.EROFS)
		}
		if err != nil {
			db.pool().Close()
			last = err
			continue
		}
		return db, nil
	}
	return nil, last
}

// errNoSchema is openReadOnly's answer for a database file that parley has not set up yet.
var errNoSchema = errors.New("the database has no schema yet")

// openEmpty opens, for the database at path that could not be created, an empty one in memory
// with this build's schema, that refuses every write: it reads as the new database would.
func openEmpty(path string, clock chat.Clock) (*DB, error) {
	var b [8]byte
	rand.Read(b[:])
	sdb, err := sql.Open("sqlite", "file:parley-empty-"+hex.EncodeToString(b[:])+"?mode=memory&cache=shared")
	if err != nil {
		return nil, err
	}
	sdb.SetMaxOpenConns(1) // one connection: the memory database is its
	db := &DB{path: path, recovery: newRecovery(path), log: slog.New(slog.DiscardHandler), clock: clock, closing: make(chan struct{})}
	db.sql.Store(sdb)
	if err := db.migrate(); err != nil {
		sdb.Close()
		return nil, err
	}
	if _, err := sdb.Exec("PRAGMA query_only = ON"); err != nil {
		sdb.Close()
		return nil, err
	}
	return db, nil
}

// fileDSN names the database at path to the driver, with SQLite's wait for another's lock.
func fileDSN(path string) string {
	u := url.URL{Scheme: "file", Path: path}
	return u.String() + fmt.Sprintf("?_pragma=busy_timeout(%d)", busyTimeout.Milliseconds())
}

// openSQL opens the SQLite handle of the database at path with the extra DSN parameter param.
func openSQL(path, param string, clock chat.Clock) (*DB, error) {
	sdb, err := sql.Open("sqlite", fileDSN(path)+"&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&"+param)
	if err != nil {
		return nil, err
	}
	db := &DB{path: path, recovery: newRecovery(path), log: slog.New(slog.DiscardHandler), clock: clock, closing: make(chan struct{})}
	db.sql.Store(sdb)
	return db, nil
}

// ReadOnly reports whether the database was opened only to read.
func (db *DB) ReadOnly() bool { return db.readOnly.Load() != nil }

// checkPlace refuses, in one line with the fix, a database path parley cannot use at all: a
// directory for it that is not one, or cannot be searched, and a file that is a directory, a
// device, a symbolic link leading to itself, or cannot be read. A file or directory that
// cannot be written is not refused: it opens read-only.
func checkPlace(path string) error {
	const other = "set PARLEY_HOME to another directory"
	dir := filepath.Dir(path)
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, syscall.ELOOP):
		return fmt.Errorf("%s is a symbolic link that leads back to itself: fix the link, or %s", dir, other)
	case errors.Is(err, syscall.ENOTDIR), err == nil && !info.IsDir():
		return fmt.Errorf("%s is not a directory, so it cannot hold history.db: move it aside, or %s", dir, other)
	case err == nil && syscall.Access(dir, 0o5) != nil: // R_OK|X_OK
		return fmt.Errorf("%s cannot be read (mode %o): chmod 700 it, or %s", dir, info.Mode().Perm(), other)
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s cannot be used (%v): %s", dir, errors.Unwrap(err), other)
	}
	info, err = os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		// Another parley may have created the file since: only a link is one to nothing.
		if li, lerr := os.Lstat(path); lerr == nil && li.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link to nothing: remove it, or %s", path, other)
		}
		return nil
	case errors.Is(err, syscall.ELOOP):
		return fmt.Errorf("%s is a symbolic link that leads back to itself: remove it, or %s", path, other)
	case err != nil:
		return fmt.Errorf("%s cannot be used (%v): %s", path, errors.Unwrap(err), other)
	case info.IsDir():
		return fmt.Errorf("%s is a directory, not a database: move it aside, or %s", path, other)
	case !info.Mode().IsRegular():
		return fmt.Errorf("%s is %s, not a database: remove it, or %s", path, fileKind(info.Mode()), other)
	case syscall.Access(path, 0o4) != nil: // R_OK
		return fmt.Errorf("%s cannot be read (mode %o): chmod 600 it, or %s", path, info.Mode().Perm(), other)
	}
	return nil
}

// fileKind names what a file that is not a regular one is.
func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// checkFile refuses, without writing anything, a file that is not an SQLite database or whose
// header records a schema version newer than this build's. A missing or empty file passes.
func checkFile(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	// The header is 100 bytes; user_version is the big-endian integer at offset 60.
	head := make([]byte, 100)
	n, err := io.ReadFull(f, head)
	if n == 0 {
		return nil
	}
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return err
	}
	// Bytes 21-23 are fixed by the file format; checking them keeps a file that merely starts
	// with the magic string from being taken for a database of a newer parley.
	if n < len(head) || !bytes.HasPrefix(head, sqliteHeader) || head[21] != 64 || head[22] != 32 || head[23] != 32 {
		return fileError(path, ErrNotDatabase)
	}
	version := int(binary.BigEndian.Uint32(head[60:]))
	if version > len(migrations) {
		return fileError(path, ErrNewerSchema)
	}
	// A schema version on a file of one page, with no log beside it to hold more, is a header
	// without tables: what a sqlite3 ".recover" that failed part way leaves.
	pageSize := int64(binary.BigEndian.Uint16(head[16:]))
	if pageSize == 1 {
		pageSize = 65536
	}
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if wal, err := os.Stat(path + "-wal"); version > 0 && info.Size() <= pageSize && (err != nil || wal.Size() == 0) {
		return fileError(path, ErrNoTables)
	}
	return nil
}

// fileError names the file and the fix for errors about the database file as a whole.
func fileError(path string, err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_NOTADB {
		err = ErrNotDatabase
	}
	switch {
	case errors.Is(err, ErrNewerSchema):
		return fmt.Errorf("%s: %w; upgrade parley or set PARLEY_HOME to another directory", path, err)
	case errors.Is(err, ErrNotDatabase):
		return fmt.Errorf("%s: %w; move it aside or set PARLEY_HOME to another directory", path, err)
	case errors.Is(err, ErrNoTables):
		return fmt.Errorf("%s %w: move it aside and recover again as the README's \"When storage fails\" says, "+
			"or set PARLEY_HOME to another directory", path, err)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// setUp checks the schema version before anything is written, then switches to WAL mode and
// applies the migrations this database has not seen, each only when it must: a database set
// up already is opened without a write.
func (db *DB) setUp() error {
	var version int
	if err := db.pool().QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	if version > len(migrations) {
		return ErrNewerSchema
	}
	var mode string
	if err := db.pool().QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if mode != "wal" {
		if err := db.switchToWAL(); err != nil {
			return err
		}
	}
	if version == len(migrations) {
		return nil
	}
	return db.migrate()
}

// busyTimeout is how long a statement waits for a lock another parley holds. It is a variable
// only so that tests of a lock held past it need not wait five seconds.
var busyTimeout = 5 * time.Second

// switchToWAL puts the database in WAL mode. SQLite takes the lock for the switch without
// calling the busy handler, so parleys starting together on a new database would fail here;
// the switch is tried again for as long as any other statement would wait.
func (db *DB) switchToWAL() error {
	// A real wait, slept through: it is on the system clock, not the rows' clock.
	deadline := time.Now().Add(busyTimeout)
	for {
		var mode string
		err := db.pool().QueryRow("PRAGMA journal_mode = WAL").Scan(&mode)
		var se *sqlite.Error
		switch {
		case err == nil && mode != "wal":
			return fmt.Errorf("cannot switch to WAL mode (journal mode is %q)", mode)
		case err == nil:
			return nil
		case !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY || time.Now().After(deadline):
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// migrate applies the pending migrations in one transaction. It reads the version again inside
// the transaction because another parley process may have migrated in the meantime.
func (db *DB) migrate() error {
	return db.write(func(tx *sql.Tx) error {
		var version int
		if err := tx.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
			return err
		}
		if version > len(migrations) {
			return ErrNewerSchema
		}
		if version == len(migrations) {
			return nil
		}
		for i := version; i < len(migrations); i++ {
			if _, err := tx.Exec(migrations[i]); err != nil {
				return fmt.Errorf("migration %d: %w", i+1, err)
			}
		}
		// PRAGMA takes no parameters; the value is a trusted integer.
		_, err := tx.Exec(fmt.Sprintf("PRAGMA user_version = %d", len(migrations)))
		return err
	})
}

// Close closes the database and releases this handle's owner lock, deleting its lock file. A
// file that left the path has its log emptied into it first (held.go).
func (db *DB) Close() error {
	if db.pool() == nil {
		return nil
	}
	db.closingOnce.Do(func() { close(db.closing) })
	db.folding.Lock()
	defer db.folding.Unlock()
	db.upgrading.Lock() // an upgrade under way finishes first: what it opened is closed here
	defer db.upgrading.Unlock()
	if db.closed.Load() {
		return nil
	}
	var err error
	if db.appendChunk != nil {
		err = db.appendChunk.Close()
	}
	if db.pin != nil && db.held() != nil {
		db.emptyLog() // what was written since it was found gone
	}
	db.closed.Store(true)
	if db.pin != nil {
		// pin stays set: a write that checked the file just before Close finds it closed
		// (sql.ErrConnDone), never nil.
		err = errors.Join(err, db.pin.Close())
	}
	err = errors.Join(err, db.pool().Close())
	if db.retired != nil {
		if db.retiredStmt != nil {
			db.retiredStmt.Close()
		}
		err = errors.Join(err, db.retired.Close())
	}
	if db.file != nil {
		err = errors.Join(err, db.file.Close())
		db.file = nil
	}
	if db.lock != nil {
		err = errors.Join(err, releaseLock(db.lock))
		db.lock = nil
	}
	return err
}

// sync makes every commit so far durable on disk. Commits are synced only at checkpoints
// (WAL with synchronous=NORMAL: a crash of parley loses nothing, and streaming a reply costs
// no fsync per batch), so an operator message is checkpointed as soon as it is stored: no
// power cut loses what was typed once it shows.
func (db *DB) sync() {
	if _, err := db.pool().Exec("PRAGMA wal_checkpoint(PASSIVE)"); err != nil {
		db.log.Warn("history: checkpoint after storing an operator message", "err", err)
	}
}

// SetLogger logs the trouble that does not stop a run to l, which the caller gives its own
// so that two handles in one process never log into each other's files; before, nothing is
// logged. Call it before the handle is shared.
func (db *DB) SetLogger(l *slog.Logger) { db.log = l }

// Option sets how Open opens a database.
type Option func(*options)

type options struct{ clock chat.Clock }

// WithClock stores every row with clock's time instead of the system's: a test's manual clock,
// the same one the screen and the agent run on.
func WithClock(clock chat.Clock) Option { return func(o *options) { o.clock = clock } }

// Path returns the absolute path of the database file.
func (db *DB) Path() string { return db.path }

// nanos is how times are stored: Unix nanoseconds, so that rows written in quick succession
// still sort by time.
func nanos(t time.Time) int64 { return t.UnixNano() }

// fromNanos turns a stored time back into a time.Time; NULL and 0 give the zero time.
func fromNanos(n sql.NullInt64) time.Time {
	if !n.Valid || n.Int64 == 0 {
		return time.Time{}
	}
	return time.Unix(0, n.Int64)
}
