package history

import "database/sql"

// pool is the SQLite handle every statement runs on.
func (db *DB) pool() *sql.DB { return db.sql.Load() }

// upgrade makes a handle that opened read-only because the disk was full a writable one, as
// Open would have made it, once the disk has room: freeing space is all it takes for the next
// write to be stored. It does nothing on any other handle, and leaves this one as it is while
// the disk is still full (the write then says so).
//
// The writable handle's fields are set before its pool is published, and every write loads
// the pool first: what a write reads of them is the upgraded handle's.
func (db *DB) upgrade() {
	if cause := db.readOnly.Load(); cause == nil || FaultOf(*cause) != FaultFull {
		return
	}
	db.upgrading.Lock()
	defer db.upgrading.Unlock()
	if db.readOnly.Load() == nil || db.closed.Load() {
		return // upgraded meanwhile, or closed
	}
	w, err := openWritable(db.path, db.clock)
	if err != nil {
		return
	}
	stmt, err := w.pool().Prepare(appendChunkSQL)
	if err != nil {
		w.Close()
		return
	}
	old, oldStmt := db.pool(), db.appendChunk
	db.token, db.lock, db.file, db.opened, db.pin, db.appendChunk = w.token, w.lock, w.file, w.opened, w.pin, stmt
	db.sql.Store(w.pool())
	db.readOnly.Store(nil)
	db.log.Info("history: the disk has room again; storing", "path", db.path)
	// The read-only pool is closed with the handle: a read that loaded it just before may
	// still be about to run on it.
	db.retired, db.retiredStmt = old, oldStmt
}
