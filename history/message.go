package history

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"parley/internal/chat"
)

// Message is one stored message, with the run that produced it when it is a reply.
type Message struct {
	ID        int64
	SessionID string
	Role      chat.Role
	Content   string
	// AnchorID is, for a reply, the operator message it answers; 0 otherwise.
	AnchorID int64
	// RunID is, for a reply, the run that produced it; 0 otherwise.
	RunID int64
	// Status is, for a reply, its run's status; empty otherwise.
	Status chat.Status
	// Superseded reports whether a regeneration replaced this message. Superseded messages
	// are kept but never sent to the model again.
	Superseded bool
	CreatedAt  time.Time
	// Retry is the classification of a failed or interrupted run; nil otherwise.
	Retry *chat.Classification
	// Attempts and Model are those of the reply's run.
	Attempts int
	Model    string
	// Reasoning is the thinking a reply's model streamed before its answer; never sent back
	// unless a profile asks (see Context).
	Reasoning string
	// FinishReason is the endpoint's finish_reason for a reply ("length": cut at the token
	// limit); empty until the run succeeds.
	FinishReason string
	// ReasoningTokens is what the endpoint said the reply's thinking took, 0 when it did not;
	// Thought is how long the model thought, 0 when it did not or it was not kept (both as its
	// run stored them at its end).
	ReasoningTokens int
	Thought         time.Duration
	// SystemRole is, for a system prompt, the name of the parley role it came from; empty for
	// a prompt given as text.
	SystemRole string
	// EditOf is, for an operator message sent as an edit (Edit), the one it replaced; 0
	// otherwise.
	EditOf int64
	// Images are an operator message's images: what they are, without their bytes
	// (ImageData reads those).
	Images []chat.Image
	// Pinned is set when the operator pinned the message: compaction never leaves it out.
	Pinned bool
	// Seam is, for a reply that continues a cut one (Continue), the byte of Content where the
	// continuation begins; 0 otherwise.
	Seam int
	// Usage is what a reply's run used, as it stored it at its end; FirstWord is how long its
	// first word took (0: none came, or not kept), and Took how long the run took in all, from
	// its start to its end (0 until it ends).
	Usage     chat.Usage
	FirstWord time.Duration
	Took      time.Duration
	// ToolCalls are, for a reply, the tool calls its run's model asked for, in order, with
	// what became of each.
	ToolCalls []ToolCall
}

// Receipt is what posting or regenerating returns.
type Receipt struct {
	// SessionID is the session of the run: for Post, the one it created, when it did.
	SessionID string
	// AnchorID is the operator message the new run answers.
	AnchorID int64
	// RunID is the new run, queued; below 0 for one the database could not store
	// (PostToRecovery), which only the recovery file has.
	RunID int64
	// ReplyID is the new run's reply, empty for now.
	ReplyID int64
	// Superseded lists, in ascending order, the messages a regeneration superseded.
	Superseded []int64
	// Queued echoes the caller: the run waits behind another that is active.
	Queued bool
	// Pending is set by Retry: the reply is hidden until its first text takes the place of
	// the live one.
	Pending bool
	// Prefix is set by Continue: the text the new reply begins with, which the request sends
	// as the assistant's turn for the model to go on from.
	Prefix string
}

// ErrEmptyMessage means an operator message had nothing but white space, and no image.
var ErrEmptyMessage = errors.New("empty message")

// Post stores an operator message in the session, with the images it carries, a queued run to
// answer it and the run's empty reply, in one transaction that is committed before Post
// returns: once it has, nothing the operator typed can be lost. With no session id it creates
// the session in the same transaction: a conversation is stored when its first message is.
func (db *DB) Post(sessionID, content, model string, queued bool, images ...chat.Image) (Receipt, error) {
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
func (db *DB) PostSeen(sessionID string, seen int64, content, model string, queued bool, images ...chat.Image) (Receipt, error) {
	return db.post(sessionID, max(seen, 0), content, model, queued, images)
}

// post is Post, and when seen is not negative PostSeen.
func (db *DB) post(sessionID string, seen int64, content, model string, queued bool, images []chat.Image) (Receipt, error) {
	if strings.TrimSpace(content) == "" && len(images) == 0 {
		return Receipt{}, ErrEmptyMessage
	}
	r := Receipt{SessionID: sessionID, Queued: queued}
	err := db.write(func(tx *sql.Tx) error {
		now := nanos(time.Now())
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
		return Receipt{}, err
	}
	db.sync() // stored either way; durable through a power cut once synced
	return r, nil
}

// newTurn stores content, with images, as an operator message of r's session (an edit of
// editOf, when not 0) with a queued run to answer it and the run's empty reply, and fills in r's ids.
func (db *DB) newTurn(tx *sql.Tx, r *Receipt, content string, images []chat.Image, editOf int64, model string, now int64) error {
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

// messageQuery reads messages with their runs; a running run's reply is its stored text and
// the chunks streamed since.
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

// liveContent and liveReasoning are message m's text and thinking as they are now: for the
// reply of a running run r, what is stored and the chunks streamed since.
const (
	liveContent   = `m.content || CASE r.status WHEN 'running' THEN ` + streamedChunks + `'content'), '') ELSE '' END`
	liveReasoning = `m.reasoning || CASE r.status WHEN 'running' THEN ` + streamedChunks + `'reasoning'), '') ELSE '' END`
)

// streamedChunks begins the text of a running run's chunks of one kind; the kind and the
// closing parentheses follow it.
const streamedChunks = `coalesce((SELECT group_concat(c.text, '' ORDER BY c.seq) FROM reply_chunks c
	WHERE c.run_id = r.id AND c.kind = `

// queryMessages runs messageQuery with a WHERE clause and returns the messages in id order.
func (db *DB) queryMessages(where string, args ...any) ([]Message, error) {
	rows, err := db.sql.Query(messageQuery+where+` ORDER BY m.id`, args...)
	if err != nil {
		return nil, db.readError(err)
	}
	out, err := readRows(rows, func(rows *sql.Rows, m *Message) error {
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
	images, err := imagesOf(db.sql, out[0].SessionID, out[0].ID, out[len(out)-1].ID, false)
	if err != nil {
		return nil, db.readError(err)
	}
	calls, err := toolCallsOfReplies(db.sql, out[0].SessionID, out[0].ID, out[len(out)-1].ID)
	for i := range out {
		out[i].Images = images[out[i].ID]
		out[i].ToolCalls = calls[out[i].ID]
	}
	return out, db.readError(err)
}

// sessionMessages returns the messages of an existing session matching extra.
func (db *DB) sessionMessages(sessionID, extra string, args ...any) ([]Message, error) {
	var one int
	err := db.sql.QueryRow(`SELECT 1 FROM sessions WHERE id = ?`, sessionID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("session %q: %w", sessionID, ErrNotFound)
	}
	if err != nil {
		return nil, db.readError(err)
	}
	return db.queryMessages(`WHERE m.session_id = ?`+extra, append([]any{sessionID}, args...)...)
}

// Transcript returns the live messages of a session (none superseded), in id order.
func (db *DB) Transcript(sessionID string) ([]Message, error) {
	return db.sessionMessages(sessionID, ` AND x.message_id IS NULL`)
}

// TranscriptBefore returns the newest limit live messages of a session whose ids are below
// before, in id order: a screen can show the end of a long session before the rest is read.
// before 0 means the newest messages; limit 0 or less means every one.
func (db *DB) TranscriptBefore(sessionID string, before int64, limit int) ([]Message, error) {
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
	err := db.sql.QueryRow(`SELECT count(*) FROM messages m WHERE m.session_id = ? AND m.id < ? AND m.role != 'system'
		AND NOT EXISTS (SELECT 1 FROM supersessions x WHERE x.message_id = m.id)`, sessionID, before).Scan(&n)
	return n, db.readError(err)
}

// AllMessages returns every message of a session, superseded ones too, in id order.
func (db *DB) AllMessages(sessionID string) ([]Message, error) {
	return db.sessionMessages(sessionID, "")
}
