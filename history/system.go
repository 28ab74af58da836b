package history

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"parley/history/stored"
	"parley/internal/chat"
)

// PostSystem makes p the system prompt of the session's operator messages from now on,
// storing it as a system message, unless it is the session's system prompt already. It
// returns the message stored, with ID 0 when nothing was. A system message is never changed
// or superseded: regenerating an earlier reply keeps the prompt that reply was made with.
func (db *DB) PostSystem(sessionID string, p stored.SystemPrompt) (stored.Message, error) {
	if strings.TrimSpace(p.Text) == "" {
		return stored.Message{}, ErrEmptyMessage
	}
	return db.storeSystem(sessionID, p)
}

// RemoveSystem leaves the session's operator messages from now on without a system prompt,
// storing the removal as a system message with no text (never sent), unless the session has
// none already. It returns the message stored, with ID 0 when nothing was.
func (db *DB) RemoveSystem(sessionID string) (stored.Message, error) {
	return db.storeSystem(sessionID, stored.SystemPrompt{})
}

// storeSystem stores p as the session's system prompt from now on (none when p is zero),
// unless it is the prompt already: that is read first, so that nothing needs a write.
func (db *DB) storeSystem(sessionID string, p stored.SystemPrompt) (stored.Message, error) {
	if cur, err := db.SystemPrompt(sessionID); err != nil || cur == p {
		return stored.Message{}, err
	}
	m := stored.Message{SessionID: sessionID, Role: chat.RoleSystem, Content: p.Text, SystemRole: p.Role}
	err := db.write(func(tx *sql.Tx) error {
		cur, err := systemPrompt(tx, sessionID)
		if err != nil || cur == p {
			return err
		}
		now := db.clock.Now()
		res, err := tx.Exec(`INSERT INTO messages (session_id, role, content, system_role, created_at)
			VALUES (?, 'system', ?, ?, ?)`, sessionID, p.Text, p.Role, nanos(now))
		if err != nil {
			return err
		}
		m.CreatedAt = time.Unix(0, nanos(now))
		m.ID, err = res.LastInsertId()
		return err
	})
	if err != nil || m.ID == 0 {
		return stored.Message{}, err
	}
	return m, nil
}

// SystemPrompt returns the session's system prompt now: its newest system message, or the
// zero SystemPrompt when it has none (or its newest is a removal, RemoveSystem).
func (db *DB) SystemPrompt(sessionID string) (stored.SystemPrompt, error) {
	return systemPrompt(db.pool(), sessionID)
}

// systemPrompt reads the session's newest system prompt in one statement, so a plain read
// needs no transaction (every one begins IMMEDIATE, taking the write lock), and PostSystem can
// read it inside its own.
func systemPrompt(q interface {
	QueryRow(string, ...any) *sql.Row
}, sessionID string) (stored.SystemPrompt, error) {
	var p stored.SystemPrompt
	err := q.QueryRow(`SELECT coalesce(m.system_role, ''), coalesce(m.content, '') FROM sessions s
		LEFT JOIN messages m ON m.id = (SELECT max(id) FROM messages WHERE session_id = s.id AND role = 'system')
		WHERE s.id = ?`, sessionID).Scan(&p.Role, &p.Text)
	if errors.Is(err, sql.ErrNoRows) {
		return stored.SystemPrompt{}, fmt.Errorf("session %q: %w", sessionID, ErrNotFound)
	}
	return p, err
}
