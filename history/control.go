package history

import (
	"database/sql"
	"errors"
	"fmt"

	"parley/history/stored"
	"parley/internal/chat"
)

// ErrNothingToContinue means a reply is not Continuable: it has no text, was not cut, or its
// run is not over.
var ErrNothingToContinue = errors.New("nothing to continue")

// Continue starts a new version of the live reply replyID that goes on from where its run
// stopped, in one transaction: like Regenerate, every live message after the reply's anchor is
// superseded; the new reply begins with the old one's text, and its run names the run it
// continues and the seam, where its own text will begin. Receipt.Prefix is that text: the
// request sends it as the assistant's turn, to be continued. A reply that is not Continuable is
// ErrNothingToContinue. A reply that called tools goes on from its last stored results, as
// a retry does (Resume): its calls go with it, a call it left pending as one that may have
// run, and none runs again.
func (db *DB) Continue(replyID int64, model string, queued bool) (stored.Receipt, error) {
	if m, err := db.Message(replyID); err == nil && len(m.ToolCalls) > 0 && m.Continuable() && !m.Superseded {
		return db.Resume(m.RunID, model, queued)
	}
	var r stored.Receipt
	err := db.write(func(tx *sql.Tx) error {
		var oldRun int64
		cut := stored.Message{Role: chat.RoleAssistant}
		err := tx.QueryRow(`SELECT m.anchor_id, `+liveContent+`, r.id, r.status, r.finish_reason FROM messages m JOIN runs r ON r.reply_id = m.id
			WHERE m.id = ? AND m.role = 'assistant' AND NOT EXISTS (SELECT 1 FROM supersessions x WHERE x.message_id = m.id)`,
			replyID).Scan(&r.AnchorID, &cut.Content, &oldRun, &cut.Status, &cut.FinishReason)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("no live reply %d: %w", replyID, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if !cut.Continuable() {
			return fmt.Errorf("reply %d: %w", replyID, ErrNothingToContinue)
		}
		r.Prefix = cut.Content
		if r.SessionID, err = liveAnchorSession(tx, r.AnchorID); err != nil {
			return err
		}
		if r.Superseded, err = liveFrom(tx, r.SessionID, r.AnchorID+1); err != nil {
			return err
		}
		now := nanos(db.clock.Now())
		if r.RunID, r.ReplyID, err = db.newRun(tx, r.SessionID, r.AnchorID, model, now); err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE messages SET content = ? WHERE id = ?`, r.Prefix, r.ReplyID); err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE runs SET continues = ?, seam = ? WHERE id = ?`, oldRun, len(r.Prefix), r.RunID); err != nil {
			return err
		}
		return supersede(tx, r.Superseded, r.RunID, r.SessionID, now)
	})
	if err != nil {
		return stored.Receipt{}, err
	}
	r.Queued = queued
	return r, nil
}

// Fork makes a new session holding the live conversation of sessionID up to and including its
// message through, in one transaction: every message as it was (system prompts, images, and
// each reply with its run's model, usage and outcome), titled as the origin is, on its profile
// and model, and linked to it (ForkOf). The origin is not changed.
func (db *DB) Fork(sessionID string, through int64) (stored.Session, error) {
	var id string
	err := db.write(func(tx *sql.Tx) error {
		var at int64
		err := tx.QueryRow(`SELECT created_at FROM messages m WHERE id = ? AND session_id = ?
			AND NOT EXISTS (SELECT 1 FROM supersessions x WHERE x.message_id = m.id)`, through, sessionID).Scan(&at)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("no live message %d in session %s: %w", through, sessionID, ErrNotFound)
		}
		if err != nil {
			return err
		}
		now := nanos(db.clock.Now())
		if id, err = insertSession(tx, now); err != nil {
			return err
		}
		// The fork goes on where the origin was: its title, and the profile and model it runs on.
		if _, err := tx.Exec(`UPDATE sessions SET (title, profile, model) = (SELECT title, profile, model FROM sessions WHERE id = ?2),
			updated_at = ?3 WHERE id = ?1`, id, sessionID, now); err != nil {
			return err
		}
		if err := copyConversation(tx, sessionID, id, through, now); err != nil {
			return err
		}
		_, err = tx.Exec(`INSERT INTO forks (session_id, origin, at_message, created_at) VALUES (?, ?, ?, ?)`, id, sessionID, through, now)
		return err
	})
	if err != nil {
		return stored.Session{}, err
	}
	db.sync()
	return db.Session(id)
}

// copyConversation copies the live messages of session from, up to through, into session to:
// each message, its images and pin, and a reply's run as it ended, with its tool calls.
func copyConversation(tx *sql.Tx, from, to string, through, now int64) error {
	ids, err := column[int64](tx.Query(`SELECT id FROM messages m WHERE session_id = ? AND id <= ?
		AND NOT EXISTS (SELECT 1 FROM supersessions x WHERE x.message_id = m.id) ORDER BY id`, from, through))
	if err != nil {
		return err
	}
	copied := map[int64]int64{} // origin message → its copy
	for _, old := range ids {
		res, err := tx.Exec(`INSERT INTO messages (session_id, role, content, reasoning, system_role, anchor_id, created_at)
			SELECT ?, m.role, `+liveContent+`, `+liveReasoning+`, m.system_role, NULL, m.created_at
			FROM messages m LEFT JOIN runs r ON r.reply_id = m.id WHERE m.id = ?`, to, old)
		if err != nil {
			return err
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		copied[old] = id
		for _, stmt := range []string{
			`INSERT INTO message_images (message_id, position, hash, name) SELECT ?1, position, hash, name FROM message_images WHERE message_id = ?2`,
			`INSERT INTO pins (message_id, created_at) SELECT ?1, created_at FROM pins WHERE message_id = ?2`,
		} {
			if _, err := tx.Exec(stmt, id, old); err != nil {
				return err
			}
		}
		// A reply is a message with an anchor; one without a run is copied as a message alone.
		var anchor, originRun sql.NullInt64
		if err := tx.QueryRow(`SELECT m.anchor_id, r.id FROM messages m LEFT JOIN runs r ON r.reply_id = m.id WHERE m.id = ?`,
			old).Scan(&anchor, &originRun); err != nil {
			return err
		}
		if !anchor.Valid {
			continue
		}
		if _, err := tx.Exec(`UPDATE messages SET anchor_id = ? WHERE id = ?`, copied[anchor.Int64], id); err != nil {
			return err
		}
		// A reply keeps its run as it ended, with its tool calls; one still running in the
		// origin is copied as interrupted, its text so far kept, and a call it left pending
		// as failed: the fork does not own that stream.
		if !originRun.Valid {
			continue
		}
		res, err = tx.Exec(`INSERT INTO runs (session_id, anchor_id, reply_id, status, owner, model, attempts,
				prompt_tokens, completion_tokens, reasoning_tokens, retryable, retry_class, retry_after_until, retry_label,
				retry_message, retry_rule, finish_reason, seam, thought_ms, first_word_ms, created_at, started_at, finished_at)
			SELECT ?1, ?2, ?3, CASE WHEN status IN ('queued', 'running') THEN 'interrupted' ELSE status END, '', model, attempts,
				prompt_tokens, completion_tokens, reasoning_tokens, retryable, retry_class, retry_after_until, retry_label,
				retry_message, retry_rule, finish_reason, seam, thought_ms, first_word_ms, created_at, started_at, finished_at
			FROM runs WHERE id = ?4`, to, copied[anchor.Int64], id, originRun.Int64)
		if err != nil {
			return err
		}
		run, err := res.LastInsertId()
		if err != nil {
			return err
		}
		if err := copyToolCalls(tx, originRun.Int64, run, now); err != nil {
			return err
		}
	}
	return nil
}

// ForkOf returns where session id was forked from; ok is false for a session that is no fork.
func (db *DB) ForkOf(id string) (f stored.Fork, ok bool, err error) {
	var at sql.NullInt64
	var title sql.NullString
	err = db.pool().QueryRow(`SELECT f.origin, f.at_message, o.title, m.created_at FROM forks f
		LEFT JOIN sessions o ON o.id = f.origin LEFT JOIN messages m ON m.id = f.at_message
		WHERE f.session_id = ?`, id).Scan(&f.Origin, &f.AtMessage, &title, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return stored.Fork{}, false, nil
	}
	if err != nil {
		return stored.Fork{}, false, err
	}
	f.OriginTitle, f.At = title.String, fromNanos(at)
	return f, true, nil
}

// SetPinned pins the message id, or unpins it: a pinned message is never left out by
// compaction (Context marks it; /compact passes it by).
func (db *DB) SetPinned(id int64, pin bool) error {
	return db.write(func(tx *sql.Tx) error {
		var one int
		if err := tx.QueryRow(`SELECT 1 FROM messages WHERE id = ?`, id).Scan(&one); errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("message %d: %w", id, ErrNotFound)
		}
		var err error
		if pin {
			_, err = tx.Exec(`INSERT OR IGNORE INTO pins (message_id, created_at) VALUES (?, ?)`, id, nanos(db.clock.Now()))
		} else {
			_, err = tx.Exec(`DELETE FROM pins WHERE message_id = ?`, id)
		}
		return err
	})
}

// CompactBefore leaves the messages of session id before message before out of every later
// request (system prompts and pinned messages aside): /compact, applied.
func (db *DB) CompactBefore(id string, before int64) error {
	return db.write(func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO compactions (session_id, before) VALUES (?1, ?2)
			ON CONFLICT (session_id) DO UPDATE SET before = max(before, ?2)`, id, before)
		return err
	})
}
