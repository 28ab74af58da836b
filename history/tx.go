package history

import "database/sql"

// write runs fn in one transaction and commits it when fn succeeds; otherwise nothing fn did
// is kept. Nothing is written to a file that left the path (held). A failure to store says so in plain words (StorageError).
func (db *DB) write(fn func(tx *sql.Tx) error) error {
	db.upgrade()
	if err := db.held(); err != nil {
		return err
	}
	tx, err := db.pool().Begin()
	if err != nil {
		return db.storageError(err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return db.storageError(err)
	}
	return db.storageError(tx.Commit())
}

// readRows reads every row of rows into a T with scan and closes rows before it returns, so
// the transaction they came from can go on.
func readRows[T any](rows *sql.Rows, scan func(*sql.Rows, *T) error) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := scan(rows, &v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, rows.Close()
}

// column reads the only column of every row of a query, given the query's results.
func column[T any](rows *sql.Rows, err error) ([]T, error) {
	if err != nil {
		return nil, err
	}
	return readRows(rows, func(r *sql.Rows, v *T) error { return r.Scan(v) })
}
