package history

import (
	"database/sql"
	"errors"
	"fmt"

	"parley/history/stored"
)

// This file holds running an operator message again: Regenerate by hand, Retry for Tier 2
// (hidden until its first output takes the live reply's place), and the supersession both make.

// Regenerate starts a new reply to the live operator message anchorID, in one transaction:
// every live message of its session after the anchor (replies and later operator messages
// alike) is superseded, and a queued run with an empty reply is created. The anchor itself is
// not touched and no operator message is added.
func (db *DB) Regenerate(anchorID int64, model string, queued bool) (stored.Receipt, error) {
	r := stored.Receipt{AnchorID: anchorID, Queued: queued}
	err := db.write(func(tx *sql.Tx) error {
		var err error
		if r.SessionID, err = liveAnchorSession(tx, anchorID); err != nil {
			return err
		}
		if r.Superseded, err = liveFrom(tx, r.SessionID, anchorID+1); err != nil {
			return err
		}
		now := nanos(db.clock.Now())
		if r.RunID, r.ReplyID, err = db.newRun(tx, r.SessionID, anchorID, model, now); err != nil {
			return err
		}
		return supersede(tx, r.Superseded, r.RunID, r.SessionID, now)
	})
	if err != nil {
		return stored.Receipt{}, err
	}
	return r, nil
}

// liveFrom returns, in ascending order, the live messages of a session from id first on,
// system prompts left out: they are never superseded.
func liveFrom(tx *sql.Tx, sessionID string, first int64) ([]int64, error) {
	return column[int64](tx.Query(`SELECT id FROM messages m WHERE session_id = ? AND id >= ? AND role != 'system'
		AND NOT EXISTS (SELECT 1 FROM supersessions x WHERE x.message_id = m.id) ORDER BY id`,
		sessionID, first))
}

// supersede records that run runID replaced the messages ids, and that the session changed.
func supersede(tx *sql.Tx, ids []int64, runID int64, sessionID string, now int64) error {
	for _, id := range ids {
		if _, err := tx.Exec(`INSERT INTO supersessions (message_id, run_id) VALUES (?, ?)`, id, runID); err != nil {
			return err
		}
	}
	_, err := tx.Exec(`UPDATE sessions SET updated_at = ? WHERE id = ?`, now, sessionID)
	return err
}

// Retry starts a new reply to the live operator message anchorID like Regenerate, except that
// it replaces nothing until it has output: the new reply is hidden (superseded by its own run),
// and the live messages after the anchor stay live. The first text appended to it
// (AppendReply) takes their place, in the transaction that stores that text; Receipt.Superseded
// is empty. An attempt that ends without output stays hidden: it was never a version of the
// reply, and the reply the operator was reading stays where it was. Only this handle may
// append to the run.
func (db *DB) Retry(anchorID int64, model string, queued bool) (stored.Receipt, error) {
	r := stored.Receipt{AnchorID: anchorID, Queued: queued, Pending: true}
	err := db.write(func(tx *sql.Tx) error {
		return db.newHiddenRun(tx, &r, model, nanos(db.clock.Now()))
	})
	if err != nil {
		return stored.Receipt{}, err
	}
	db.takeOvers.Store(r.RunID, true)
	return r, nil
}

// newHiddenRun creates, in tx, the queued run of Retry and Resume: it answers r.AnchorID, which
// must be a live operator message, and its reply is hidden (superseded by its own run) until
// its first text takes over (takeOver). It fills r's SessionID, RunID and ReplyID; once tx has
// committed, the caller adds the run to db.takeOvers.
func (db *DB) newHiddenRun(tx *sql.Tx, r *stored.Receipt, model string, now int64) error {
	var err error
	if r.SessionID, err = liveAnchorSession(tx, r.AnchorID); err != nil {
		return err
	}
	if r.RunID, r.ReplyID, err = db.newRun(tx, r.SessionID, r.AnchorID, model, now); err != nil {
		return err
	}
	_, err = tx.Exec(`INSERT INTO supersessions (message_id, run_id) VALUES (?, ?)`, r.ReplyID, r.RunID)
	return err
}

// takeOver makes the hidden reply of Retry's run runID live, in place of the messages that were
// live after its anchor when the retry was made; those are superseded by the run. It runs in
// the transaction that stores the run's first text.
func takeOver(tx *sql.Tx, runID int64) error {
	_, err := tx.Exec(`
		DELETE FROM supersessions WHERE run_id = ?1 AND message_id = (SELECT reply_id FROM runs WHERE id = ?1);
		INSERT INTO supersessions (message_id, run_id)
			SELECT m.id, r.id FROM runs r JOIN messages m ON m.session_id = r.session_id
			WHERE r.id = ?1 AND m.id > r.anchor_id AND m.id < r.reply_id
				AND NOT EXISTS (SELECT 1 FROM supersessions x WHERE x.message_id = m.id);`, runID)
	return err
}

// liveAnchorSession returns the session of anchorID, which must be a live operator message.
func liveAnchorSession(tx *sql.Tx, anchorID int64) (string, error) {
	var sessionID string
	err := tx.QueryRow(`SELECT session_id FROM messages m WHERE id = ? AND role = 'user'
		AND NOT EXISTS (SELECT 1 FROM supersessions x WHERE x.message_id = m.id)`, anchorID).Scan(&sessionID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("no live operator message %d: %w", anchorID, ErrNotFound)
	}
	return sessionID, err
}
