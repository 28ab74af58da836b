package history

import (
	"database/sql"
	"errors"
	"fmt"

	"parley/history/stored"
)

// Carried returns the messages that followed reply replyID when it was superseded, and were
// superseded with it (by the same regeneration or restore), in id order: the turns that
// version of the reply carried. It is empty for a live reply.
func (db *DB) Carried(replyID int64) ([]stored.Message, error) {
	return db.queryMessages(`JOIN supersessions v ON v.message_id = ?1
		WHERE x.run_id = v.run_id AND x.restore_id IS v.restore_id AND m.id > ?1`, replyID)
}

// Restore makes reply replyID, a superseded version with text, live again together with the
// turns it carried (see Carried), and supersedes what is live after its anchor now, in one
// transaction. Nothing is sent and no message is changed: only which messages are live. The
// anchor must be live, and no run of the session may be queued or running (ErrStreaming).
func (db *DB) Restore(replyID int64) error {
	return db.write(func(tx *sql.Tx) error {
		var (
			sessionID           string
			anchorID, runID     int64
			supRun              int64
			supRestore          sql.NullInt64
			hasText, liveAnchor bool
		)
		err := tx.QueryRow(`SELECT m.session_id, m.anchor_id, r.id, x.run_id, x.restore_id,
				`+withText+`,
				NOT EXISTS (SELECT 1 FROM supersessions a WHERE a.message_id = m.anchor_id)
			FROM messages m JOIN runs r ON r.reply_id = m.id JOIN supersessions x ON x.message_id = m.id
			WHERE m.id = ? AND m.role = 'assistant'`, replyID).
			Scan(&sessionID, &anchorID, &runID, &supRun, &supRestore, &hasText, &liveAnchor)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("no superseded reply %d: %w", replyID, ErrNotFound)
		case err != nil:
			return err
		case !liveAnchor:
			return fmt.Errorf("reply %d answers a message that is itself superseded: %w", replyID, ErrNotFound)
		case !hasText:
			return fmt.Errorf("reply %d has no text: an attempt that produced nothing is not a version", replyID)
		}
		var busy bool
		if err := tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM runs WHERE session_id = ? AND status IN ('queued', 'running'))`,
			sessionID).Scan(&busy); err != nil {
			return err
		}
		if busy {
			return fmt.Errorf("session %s: %w", sessionID, ErrStreaming)
		}
		now := nanos(db.clock.Now())
		res, err := tx.Exec(`INSERT INTO restores (reply_id, created_at) VALUES (?, ?)`, replyID, now)
		if err != nil {
			return err
		}
		restoreID, err := res.LastInsertId()
		if err != nil {
			return err
		}
		// What is live after the anchor gives way, superseded by the restored reply's run under
		// this restore; then the version and what it carried are live again.
		if _, err := tx.Exec(`INSERT INTO supersessions (message_id, run_id, restore_id)
			SELECT m.id, ?3, ?4 FROM messages m WHERE m.session_id = ?1 AND m.id > ?2
				AND NOT EXISTS (SELECT 1 FROM supersessions x WHERE x.message_id = m.id)`,
			sessionID, anchorID, runID, restoreID); err != nil {
			return err
		}
		if _, err := tx.Exec(`DELETE FROM supersessions WHERE message_id >= ?1 AND run_id = ?2 AND restore_id IS ?3`,
			replyID, supRun, supRestore); err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE sessions SET updated_at = ? WHERE id = ?`, now, sessionID); err != nil {
			return err
		}
		return nil
	})
}
