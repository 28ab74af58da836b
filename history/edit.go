package history

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// editChain selects the ids of the operator messages that are edits of one another: the
// message ?1, those it was edited from, and those edited from it, at any distance.
const editChain = `WITH RECURSIVE chain (id) AS (
		SELECT ?1
		UNION SELECT e.edit_of FROM messages e JOIN chain c ON e.id = c.id WHERE e.edit_of IS NOT NULL
		UNION SELECT e.id FROM messages e JOIN chain c ON e.edit_of = c.id
	) SELECT id FROM chain`

// Edit sends content in place of the live operator message operatorID, in one transaction:
// that message and every live message of its session after it (system prompts aside) are
// superseded, and content is stored as a new operator message that names the one it replaces,
// with a queued run and its empty reply. Nothing stored is changed: the old turn stays
// readable as a version (Versions). The new message is checkpointed like a posted one.
func (db *DB) Edit(operatorID int64, content, model string, queued bool) (Receipt, error) {
	if strings.TrimSpace(content) == "" {
		return Receipt{}, ErrEmptyMessage
	}
	tx, err := db.sql.Begin()
	if err != nil {
		return Receipt{}, err
	}
	defer tx.Rollback()
	var sessionID string
	err = tx.QueryRow(`SELECT session_id FROM messages m WHERE id = ? AND role = 'user'
		AND NOT EXISTS (SELECT 1 FROM supersessions x WHERE x.message_id = m.id)`, operatorID).Scan(&sessionID)
	if errors.Is(err, sql.ErrNoRows) {
		return Receipt{}, fmt.Errorf("no live operator message %d: %w", operatorID, ErrNotFound)
	}
	if err != nil {
		return Receipt{}, err
	}
	r := Receipt{SessionID: sessionID, Queued: queued}
	if r.Superseded, err = liveFrom(tx, sessionID, operatorID); err != nil {
		return Receipt{}, err
	}
	now := nanos(time.Now())
	res, err := tx.Exec(`INSERT INTO messages (session_id, role, content, edit_of, created_at) VALUES (?, 'user', ?, ?, ?)`,
		sessionID, content, operatorID, now)
	if err != nil {
		return Receipt{}, err
	}
	if r.AnchorID, err = res.LastInsertId(); err != nil {
		return Receipt{}, err
	}
	if r.RunID, r.ReplyID, err = db.newRun(tx, sessionID, r.AnchorID, model, now); err != nil {
		return Receipt{}, err
	}
	if err := supersede(tx, r.Superseded, r.RunID, sessionID, now); err != nil {
		return Receipt{}, err
	}
	if err := tx.Commit(); err != nil {
		return Receipt{}, err
	}
	db.sync()
	return r, nil
}

// Message returns the stored message id, superseded or not.
func (db *DB) Message(id int64) (Message, error) {
	out, err := db.queryMessages(`WHERE m.id = ?`, id)
	if err == nil && len(out) == 0 {
		return Message{}, fmt.Errorf("message %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Message{}, err
	}
	return out[0], nil
}
