package history

import (
	"database/sql"
	"fmt"
	"strings"

	"parley/history/stored"
	"parley/internal/chat"
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
// carrying its images and then more, with a queued run and its empty reply. Nothing stored is changed: the old turn stays
// readable as a version (Versions). The new message is checkpointed like a posted one.
func (db *DB) Edit(operatorID int64, content, model string, queued bool, more ...chat.Image) (stored.Receipt, error) {
	if strings.TrimSpace(content) == "" {
		return stored.Receipt{}, ErrEmptyMessage
	}
	r := stored.Receipt{Queued: queued}
	err := db.write(func(tx *sql.Tx) error {
		var err error
		if r.SessionID, err = liveAnchorSession(tx, operatorID); err != nil {
			return err
		}
		kept, err := imagesOf(tx, r.SessionID, operatorID, operatorID, false)
		if err != nil {
			return err
		}
		if r.Superseded, err = liveFrom(tx, r.SessionID, operatorID); err != nil {
			return err
		}
		now := nanos(db.clock.Now())
		if err := db.newTurn(tx, &r, content, append(kept[operatorID], more...), operatorID, model, now); err != nil {
			return err
		}
		return supersede(tx, r.Superseded, r.RunID, r.SessionID, now)
	})
	if err != nil {
		return stored.Receipt{}, err
	}
	db.sync()
	return r, nil
}

// Message returns the stored message id, superseded or not.
func (db *DB) Message(id int64) (stored.Message, error) {
	out, err := db.queryMessages(`WHERE m.id = ?`, id)
	if err == nil && len(out) == 0 {
		return stored.Message{}, fmt.Errorf("message %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return stored.Message{}, err
	}
	return out[0], nil
}
