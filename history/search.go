package history

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"parley/history/stored"
)

// liveMatches are the live messages that match the FTS5 query ?1, with their sessions: what
// Search returns and CountMatches counts.
const liveMatches = `FROM messages_fts
		JOIN messages m ON m.id = messages_fts.rowid
		JOIN sessions s ON s.id = m.session_id
		WHERE messages_fts MATCH ?1
			AND NOT EXISTS (SELECT 1 FROM supersessions x WHERE x.message_id = m.id)`

// Search finds the live messages of every session that contain all of words (the last may be
// the start of a word, for searching as one types), best matches first, at most limit. The
// index is kept on folded text: a reply whose run has ended is folded first (foldEnded).
func (db *DB) Search(words string, limit int) ([]stored.Hit, error) {
	q := matchQuery(words)
	if q == "" {
		return nil, nil
	}
	db.foldEnded()
	rows, err := db.pool().Query(`
		SELECT m.id, m.session_id, s.title, m.role, m.created_at,
			snippet(messages_fts, 0, ?2, ?3, '…', 16)
		`+liveMatches+`
		ORDER BY rank LIMIT ?4`, q, stored.HitStart, stored.HitEnd, limit)
	if err != nil {
		return nil, db.readError(err)
	}
	hits, err := readRows(rows, func(rows *sql.Rows, h *stored.Hit) error {
		var created sql.NullInt64
		err := rows.Scan(&h.MessageID, &h.SessionID, &h.Title, &h.Role, &created, &h.Excerpt)
		h.CreatedAt = fromNanos(created)
		return err
	})
	return hits, db.readError(err)
}

// CountMatches counts the messages Search finds for words when no limit stops it.
func (db *DB) CountMatches(words string) (int, error) {
	q := matchQuery(words)
	if q == "" {
		return 0, nil
	}
	db.foldEnded()
	var n int
	err := db.pool().QueryRow(`SELECT count(*) `+liveMatches, q).Scan(&n)
	return n, err
}

// matchQuery turns what the operator typed into an FTS5 query: every word quoted, so that no
// word is read as query syntax, all of them required, the last one as a prefix.
func matchQuery(words string) string {
	fields := strings.FieldsFunc(words, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	for i, f := range fields {
		fields[i] = `"` + f + `"`
	}
	if len(fields) > 0 {
		fields[len(fields)-1] += "*"
	}
	return strings.Join(fields, " ")
}

// ErrStreaming means a session cannot be deleted while one of its replies is being written.
var ErrStreaming = errors.New("a reply of the session is still streaming")

// DeleteSession deletes a session and everything in it — its messages, operator messages
// included, its runs and their search index — in one transaction. A session with a run still
// running (here or in another parley) is refused with ErrStreaming.
func (db *DB) DeleteSession(id string) error {
	return db.write(func(tx *sql.Tx) error {
		var running bool
		if err := tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM runs WHERE session_id = ? AND status = 'running')`, id).
			Scan(&running); err != nil {
			return err
		}
		if running {
			return fmt.Errorf("session %s: %w", id, ErrStreaming)
		}
		return deleteSession(tx, id)
	})
}

// DiscardUnsent deletes a session in which nothing was ever sent — every run of it ended
// without a request (no key, a provider's wait, a spend limit) — in one transaction, and
// reports whether it did. Print mode calls it for the session it created, so that a run that
// sent nothing leaves nobody's conversation behind; a session with a run that sent a request,
// or one still to end, is kept.
func (db *DB) DiscardUnsent(id string) (bool, error) {
	discarded := false
	err := db.write(func(tx *sql.Tx) error {
		var sent bool
		if err := tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM runs WHERE session_id = ?
			AND (attempts > 0 OR status IN ('queued', 'running')))`, id).Scan(&sent); err != nil || sent {
			return err
		}
		discarded = true
		return deleteSession(tx, id)
	})
	return discarded && err == nil, err
}

// deleteSession deletes session id and everything in it, inside tx.
func deleteSession(tx *sql.Tx, id string) error {
	res, err := tx.Exec(`UPDATE sessions SET deleting = 1 WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if err := sessionFound(res, id); err != nil {
		return err
	}
	for _, stmt := range []string{
		`DELETE FROM supersessions WHERE run_id IN (SELECT id FROM runs WHERE session_id = ?1)
				OR message_id IN (SELECT id FROM messages WHERE session_id = ?1)`,
		`DELETE FROM restores WHERE reply_id IN (SELECT id FROM messages WHERE session_id = ?1)`,
		`DELETE FROM drafts WHERE session_id = ?1`,
		`DELETE FROM message_images WHERE message_id IN (SELECT id FROM messages WHERE session_id = ?1)`,
		`DELETE FROM pins WHERE message_id IN (SELECT id FROM messages WHERE session_id = ?1)`,
		`DELETE FROM forks WHERE session_id = ?1`,
		`DELETE FROM compactions WHERE session_id = ?1`,
		`DELETE FROM reply_chunks WHERE run_id IN (SELECT id FROM runs WHERE session_id = ?1)`,
		`DELETE FROM tool_calls WHERE run_id IN (SELECT id FROM runs WHERE session_id = ?1)`,
		`DELETE FROM runs WHERE session_id = ?1`,
		`DELETE FROM messages WHERE session_id = ?1`,
		`DELETE FROM sessions WHERE id = ?1`,
	} {
		if _, err := tx.Exec(stmt, id); err != nil {
			return err
		}
	}
	// An image no other message carries goes with the session.
	_, err = tx.Exec(`DELETE FROM images WHERE hash NOT IN (SELECT hash FROM message_images)`)
	return err
}

// SetTitle renames a session. A blank title is refused: the session list needs one.
func (db *DB) SetTitle(id, newTitle string) error {
	t := title(newTitle)
	if t == "" {
		return errors.New("a title needs at least one visible character")
	}
	res, err := db.pool().Exec(`UPDATE sessions SET title = ? WHERE id = ?`, t, id)
	if err != nil {
		return err
	}
	return sessionFound(res, id)
}
