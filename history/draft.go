package history

import (
	"database/sql"
	"encoding/json"
	"errors"
	"strings"

	"parley/history/stored"
)

// Draft returns what was typed in session sessionID and not sent ("" for a new session that
// is not stored yet), or "" when nothing was.
func (db *DB) Draft(sessionID string) (string, error) {
	var text string
	err := db.pool().QueryRow(`SELECT text FROM drafts WHERE session_id = ?`, sessionID).Scan(&text)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return text, err
}

// SetDraft stores text as the draft of session sessionID ("" for a new session); a text with
// nothing but white space clears it (the draft goes once its files have gone too).
func (db *DB) SetDraft(sessionID, text string) error {
	if strings.TrimSpace(text) == "" {
		text = ""
	}
	return db.setDraft(sessionID, "text", text)
}

// DraftFiles returns the files attached to the draft of session sessionID.
func (db *DB) DraftFiles(sessionID string) ([]stored.DraftFile, error) {
	var files string
	err := db.pool().QueryRow(`SELECT files FROM drafts WHERE session_id = ?`, sessionID).Scan(&files)
	if errors.Is(err, sql.ErrNoRows) || err == nil && files == "" {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []stored.DraftFile
	if err := json.Unmarshal([]byte(files), &out); err != nil {
		return nil, err
	}
	return out, nil
}

// SetDraftFiles stores files as those attached to the draft of session sessionID; none clears
// them (the draft goes once its text has gone too).
func (db *DB) SetDraftFiles(sessionID string, files []stored.DraftFile) error {
	v := ""
	if len(files) > 0 {
		b, err := json.Marshal(files)
		if err != nil {
			return err
		}
		v = string(b)
	}
	return db.setDraft(sessionID, "files", v)
}

// setDraft sets column (text or files) of a session's draft to v, and removes a draft left
// with neither.
func (db *DB) setDraft(sessionID, column, v string) error {
	return db.write(func(tx *sql.Tx) error {
		// column is one of two constants, never the caller's text.
		if _, err := tx.Exec(`INSERT INTO drafts (session_id, text, files, updated_at) VALUES (?1, '', '', ?3)
			ON CONFLICT (session_id) DO NOTHING;
			UPDATE drafts SET `+column+` = ?2, updated_at = ?3 WHERE session_id = ?1`, sessionID, v, nanos(db.clock.Now())); err != nil {
			return err
		}
		_, err := tx.Exec(`DELETE FROM drafts WHERE session_id = ? AND text = '' AND files = ''`, sessionID)
		return err
	})
}
