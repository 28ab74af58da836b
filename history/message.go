package history

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"parley/history/stored"
	"parley/internal/chat"
)

// ErrEmptyMessage means an operator message had nothing but white space, and no image.
var ErrEmptyMessage = errors.New("empty message")

// Post stores an operator message in the session, with the images it carries, a queued run to
// answer it and the run's empty reply, in one transaction that is committed before Post
// returns: once it has, nothing the operator typed can be lost. With no session id it creates
// the session in the same transaction: a conversation is stored when its first message is.
func (db *DB) Post(sessionID, content, model string, queued bool, images ...chat.Image) (stored.Receipt, error) {
	return db.post(sessionID, -1, content, model, queued, images)
}

// UnseenError is PostSeen's refusal: Count live messages were stored in the session after the
// last one the poster had seen (by another process), and nothing was stored.
type UnseenError struct{ Count int }

func (e *UnseenError) Error() string {
	if e.Count == 1 {
		return "1 message was stored in the session by another process"
	}
	return fmt.Sprintf("%d messages were stored in the session by another process", e.Count)
}

// PostSeen is Post for a screen that has shown session sessionID's messages up to id seen.
// When live messages after seen were stored meanwhile (another window on the session), it
// stores nothing and returns an *UnseenError: the model is never sent what the operator was
// not shown. The check and the post are one transaction.
func (db *DB) PostSeen(sessionID string, seen int64, content, model string, queued bool, images ...chat.Image) (stored.Receipt, error) {
	return db.post(sessionID, max(seen, 0), content, model, queued, images)
}

// post is Post, and when seen is not negative PostSeen.
func (db *DB) post(sessionID string, seen int64, content, model string, queued bool, images []chat.Image) (stored.Receipt, error) {
	if strings.TrimSpace(content) == "" && len(images) == 0 {
		return stored.Receipt{}, ErrEmptyMessage
	}
	r := stored.Receipt{SessionID: sessionID, Queued: queued}
	err := db.write(func(tx *sql.Tx) error {
		now := nanos(db.clock.Now())
		var err error
		if r.SessionID == "" {
			if r.SessionID, err = insertSession(tx, now); err != nil {
				return err
			}
		} else if seen >= 0 {
			var n int
			if err := tx.QueryRow(`SELECT count(*) FROM messages m WHERE session_id = ? AND id > ?
				AND NOT EXISTS (SELECT 1 FROM supersessions x WHERE x.message_id = m.id)`, r.SessionID, seen).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return &UnseenError{Count: n}
			}
		}
		res, err := tx.Exec(`UPDATE sessions SET updated_at = ?2,
			title = CASE title WHEN '' THEN ?3 ELSE title END WHERE id = ?1`,
			r.SessionID, now, title(titleText(content, images)))
		if err != nil {
			return err
		}
		if err := sessionFound(res, r.SessionID); err != nil {
			return err
		}
		return db.newTurn(tx, &r, content, images, 0, model, now)
	})
	if err != nil {
		return stored.Receipt{}, err
	}
	db.sync() // stored either way; durable through a power cut once synced
	return r, nil
}

// newTurn stores content, with images, as an operator message of r's session (an edit of
// editOf, when not 0) with a queued run to answer it and the run's empty reply, and fills in r's ids.
func (db *DB) newTurn(tx *sql.Tx, r *stored.Receipt, content string, images []chat.Image, editOf int64, model string, now int64) error {
	res, err := tx.Exec(`INSERT INTO messages (session_id, role, content, edit_of, created_at) VALUES (?, 'user', ?, ?, ?)`,
		r.SessionID, content, sql.NullInt64{Int64: editOf, Valid: editOf != 0}, now)
	if err != nil {
		return err
	}
	if r.AnchorID, err = res.LastInsertId(); err != nil {
		return err
	}
	if err := storeImages(tx, r.AnchorID, images); err != nil {
		return err
	}
	r.RunID, r.ReplyID, err = db.newRun(tx, r.SessionID, r.AnchorID, model, now)
	return err
}

// newRun creates a queued run answering anchorID, with its empty reply.
func (db *DB) newRun(tx *sql.Tx, sessionID string, anchorID int64, model string, now int64) (runID, replyID int64, err error) {
	res, err := tx.Exec(`INSERT INTO messages (session_id, role, content, anchor_id, created_at)
		VALUES (?, 'assistant', '', ?, ?)`, sessionID, anchorID, now)
	if err != nil {
		return 0, 0, err
	}
	if replyID, err = res.LastInsertId(); err != nil {
		return 0, 0, err
	}
	// The handle that queues a run owns it from the start, so a run left queued by a process
	// that died is found by recovery like a running one.
	res, err = tx.Exec(`INSERT INTO runs (session_id, anchor_id, reply_id, status, owner, model, created_at)
		VALUES (?, ?, ?, 'queued', ?, ?, ?)`, sessionID, anchorID, replyID, db.token, model, now)
	if err != nil {
		return 0, 0, err
	}
	if runID, err = res.LastInsertId(); err != nil {
		return 0, 0, err
	}
	if db.interactive.Load() {
		_, err = tx.Exec(`UPDATE sessions SET last_interactive_at = ? WHERE id = ?`, now, sessionID)
	}
	return runID, replyID, err
}

// messageQuery reads messages with their runs; a reply is its stored text and the chunks
// streamed since and not folded yet.
const messageQuery = `SELECT m.id, m.session_id, m.role, ` + liveContent + `,
	coalesce(m.anchor_id, 0),
	coalesce(r.id, 0), coalesce(r.status, ''), x.message_id IS NOT NULL, m.created_at,
	r.retryable, r.retry_class, r.retry_after_until, r.retry_label, r.retry_message, r.retry_rule,
	coalesce(r.attempts, 0), coalesce(r.model, ''),
	` + liveReasoning + `,
	coalesce(r.finish_reason, ''), m.system_role, coalesce(m.edit_of, 0),
	coalesce(r.reasoning_tokens, 0), coalesce(r.thought_ms, 0),
	EXISTS (SELECT 1 FROM pins p WHERE p.message_id = m.id), coalesce(r.seam, 0),
	coalesce(r.prompt_tokens, 0), coalesce(r.completion_tokens, 0), coalesce(r.first_word_ms, 0),
	coalesce(r.finished_at - r.started_at, 0)
FROM messages m
LEFT JOIN runs r ON r.reply_id = m.id
LEFT JOIN supersessions x ON x.message_id = m.id
`

// liveContent and liveReasoning are message m's text and thinking as they are now, its run
// joined as r: what is stored and the chunks of r not folded into it yet, streamed while it
// runs and kept from its end until the fold (foldReply). Every reader of a reply's text reads
// it through them, or withText.
const (
	liveContent   = `(m.content || ` + streamedChunks + `'content'), ''))`
	liveReasoning = `(m.reasoning || ` + streamedChunks + `'reasoning'), ''))`
)

// streamedChunks begins the text of run r's chunks of one kind; the kind and the closing
// parentheses follow it.
const streamedChunks = `coalesce((SELECT group_concat(c.text, '' ORDER BY c.seq) FROM reply_chunks c
	WHERE c.run_id = r.id AND c.kind = `

// withText says whether message m has any text or thinking, stored or in chunks not folded yet.
const withText = `(m.content != '' OR m.reasoning != '' OR EXISTS (SELECT 1 FROM runs r2 JOIN reply_chunks c ON c.run_id = r2.id
	WHERE r2.reply_id = m.id))`

// queryMessages runs messageQuery with a WHERE clause and returns the messages in id order.
func (db *DB) queryMessages(where string, args ...any) ([]stored.Message, error) {
	rows, err := db.pool().Query(messageQuery+where+` ORDER BY m.id`, args...)
	if err != nil {
		return nil, db.readError(err)
	}
	out, err := readRows(rows, func(rows *sql.Rows, m *stored.Message) error {
		var created sql.NullInt64
		var c storedClass
		var thoughtMS, firstWordMS, took int64
		if err := rows.Scan(&m.ID, &m.SessionID, &m.Role, &m.Content, &m.AnchorID,
			&m.RunID, &m.Status, &m.Superseded, &created,
			&c.retryable, &c.class, &c.after, &c.label, &c.message, &c.rule,
			&m.Attempts, &m.Model, &m.Reasoning, &m.FinishReason, &m.SystemRole, &m.EditOf,
			&m.ReasoningTokens, &thoughtMS, &m.Pinned, &m.Seam,
			&m.Usage.PromptTokens, &m.Usage.CompletionTokens, &firstWordMS, &took); err != nil {
			return err
		}
		m.Thought = time.Duration(thoughtMS) * time.Millisecond
		m.FirstWord, m.Took = time.Duration(firstWordMS)*time.Millisecond, time.Duration(max(took, 0))
		m.Usage.ReasoningTokens = m.ReasoningTokens
		m.CreatedAt = fromNanos(created)
		m.Retry = c.classification()
		return nil
	})
	if err != nil || len(out) == 0 {
		return out, db.readError(err)
	}
	images, err := imagesOf(db.pool(), out[0].SessionID, out[0].ID, out[len(out)-1].ID, false)
	if err != nil {
		return nil, db.readError(err)
	}
	calls, err := toolCallsOfReplies(db.pool(), out[0].SessionID, out[0].ID, out[len(out)-1].ID)
	for i := range out {
		out[i].Images = images[out[i].ID]
		out[i].ToolCalls = calls[out[i].ID]
	}
	return out, db.readError(err)
}

// sessionMessages returns the messages of an existing session matching extra.
func (db *DB) sessionMessages(sessionID, extra string, args ...any) ([]stored.Message, error) {
	var one int
	err := db.pool().QueryRow(`SELECT 1 FROM sessions WHERE id = ?`, sessionID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("session %q: %w", sessionID, ErrNotFound)
	}
	if err != nil {
		return nil, db.readError(err)
	}
	return db.queryMessages(`WHERE m.session_id = ?`+extra, append([]any{sessionID}, args...)...)
}

// Transcript returns the live messages of a session (none superseded), in id order.
func (db *DB) Transcript(sessionID string) ([]stored.Message, error) {
	return db.sessionMessages(sessionID, ` AND x.message_id IS NULL`)
}

// TranscriptBefore returns the newest limit live messages of a session whose ids are below
// before, in id order: a screen can show the end of a long session before the rest is read.
// before 0 means the newest messages; limit 0 or less means every one.
func (db *DB) TranscriptBefore(sessionID string, before int64, limit int) ([]stored.Message, error) {
	if before <= 0 {
		before = math.MaxInt64
	}
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	return db.sessionMessages(sessionID, ` AND x.message_id IS NULL AND m.id < ? AND m.id >= coalesce((
		SELECT min(id) FROM (
			SELECT l.id FROM messages l LEFT JOIN supersessions lx ON lx.message_id = l.id
			WHERE l.session_id = ? AND lx.message_id IS NULL AND l.id < ?
			ORDER BY l.id DESC LIMIT ?)), 0)`, before, sessionID, before, limit)
}

// CountBefore counts the live operator messages and replies of a session whose ids are below
// before: how many come before the messages TranscriptBefore read, so that a screen showing
// those numbers them as the whole transcript does.
func (db *DB) CountBefore(sessionID string, before int64) (int, error) {
	var n int
	err := db.pool().QueryRow(`SELECT count(*) FROM messages m WHERE m.session_id = ? AND m.id < ? AND m.role != 'system'
		AND NOT EXISTS (SELECT 1 FROM supersessions x WHERE x.message_id = m.id)`, sessionID, before).Scan(&n)
	return n, db.readError(err)
}

// AllMessages returns every message of a session, superseded ones too, in id order.
func (db *DB) AllMessages(sessionID string) ([]stored.Message, error) {
	return db.sessionMessages(sessionID, "")
}
