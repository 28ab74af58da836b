package history

import (
	"database/sql"
	"errors"
	"strings"
	"time"
)

// Draft returns what was typed in session sessionID and not sent ("" for a new session that
// is not stored yet), or "" when nothing was.
func (db *DB) Draft(sessionID string) (string, error) {
	var text string
	err := db.sql.QueryRow(`SELECT text FROM drafts WHERE session_id = ?`, sessionID).Scan(&text)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return text, err
}

// SetDraft stores text as the draft of session sessionID ("" for a new session); a text with
// nothing but white space removes the draft.
func (db *DB) SetDraft(sessionID, text string) error {
	if strings.TrimSpace(text) == "" {
		_, err := db.sql.Exec(`DELETE FROM drafts WHERE session_id = ?`, sessionID)
		return err
	}
	_, err := db.sql.Exec(`INSERT INTO drafts (session_id, text, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (session_id) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at`,
		sessionID, text, nanos(time.Now()))
	return err
}
