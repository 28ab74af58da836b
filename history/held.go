package history

import (
	"context"
	"database/sql"
	"errors"
	"os"
)

// The file a handle opened can leave the path under it: a backup restored by renaming it into
// place, a sync tool, a delete. SQLite goes on writing the file it opened, which no one will
// read again, through the -wal file still at the path, and whatever opens the path next takes
// that log for its own and replays it onto another file. So every write first checks that the
// file at the path is the one held; once it is not, writes are refused (the run writer sends
// the run whole to the recovery file) and the log is emptied into the file held, through a
// connection opened on it, so that nothing is left at the path to be replayed.

var (
	// ErrReplaced means another file was put at the database's path while parley had it open.
	ErrReplaced = errors.New("replaced while parley had it open")
	// ErrDeleted means the database file was deleted while parley had it open.
	ErrDeleted = errors.New("deleted while parley had it open")
)

// heldConn is the connection held.go falls back on, with the handle of its own it came from.
type heldConn struct {
	*sql.Conn
	pool *sql.DB
}

// pinFile opens a connection to the file now at path, beside the handle's pool, and has it
// read the header, which opens the log with the file. It sets no pragma that needs the schema:
// SQLite parses that per connection, the most a connection costs to open, and this one runs
// nothing more unless the file leaves its path.
func pinFile(path string) (*heldConn, error) {
	pool, err := sql.Open("sqlite", fileDSN(path))
	if err != nil {
		return nil, err
	}
	pool.SetMaxOpenConns(1)
	ctx := context.Background()
	conn, err := pool.Conn(ctx)
	if err == nil {
		var version int
		err = conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version)
	}
	if err != nil {
		pool.Close()
		return nil, err
	}
	return &heldConn{conn, pool}, nil
}

// Close closes the connection and its handle.
func (p *heldConn) Close() error { return errors.Join(p.Conn.Close(), p.pool.Close()) }

// held returns nil while the file at db's path is the one db opened, and a StorageError saying
// it was replaced or deleted once it is not; the first time, it empties the log into the file
// held.
func (db *DB) held() error {
	if db.opened == nil || db.closed.Load() {
		return nil // a closed handle's write fails at its pool
	}
	if gone := db.gone.Load(); gone != nil {
		return describe(db.path, *gone)
	}
	var gone error
	switch at, err := os.Stat(db.path); {
	case errors.Is(err, os.ErrNotExist):
		gone = ErrDeleted
	case err == nil && !os.SameFile(at, db.opened):
		gone = ErrReplaced
	default:
		return nil
	}
	if db.gone.CompareAndSwap(nil, &gone) {
		db.log.Error("history: the database file left its path; nothing more is written to it", "path", db.path, "err", gone)
		db.emptyLog()
	}
	return describe(db.path, gone)
}

// emptyLog checkpoints the log into the file held and truncates it to nothing, through the
// connection opened with the handle: a connection opened now would be on the file at the path.
func (db *DB) emptyLog() {
	if _, err := db.pin.ExecContext(context.Background(), "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil && !errors.Is(err, sql.ErrConnDone) {
		db.log.Error("history: emptying the log of a database file that left its path", "path", db.path, "err", err)
	}
}

// heldAnchor returns the operator message run runID answers and the model it asked, read from
// the file held.
func (db *DB) heldAnchor(runID int64) (content, model string, err error) {
	err = db.pin.QueryRowContext(context.Background(), `SELECT a.content, r.model FROM runs r
		JOIN messages a ON a.id = r.anchor_id WHERE r.id = ?`, runID).Scan(&content, &model)
	return content, model, err
}
