package history

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"parley/history/stored"
	"parley/internal/chat"
)

// firstWordMS is a first word's wait as runs.first_word_ms holds it: NULL for none, and at
// least 1 ms for one that came.
func firstWordMS(d time.Duration) sql.NullInt64 {
	return sql.NullInt64{Int64: max(1, d.Milliseconds()), Valid: d > 0}
}

// storedOf is c as its nullable columns; a nil c is all NULL.
func storedOf(c *chat.Classification) storedClass {
	if c == nil {
		return storedClass{}
	}
	sc := storedClass{
		retryable: sql.NullBool{Bool: c.Retryable, Valid: true},
		class:     sql.NullString{String: string(c.Class), Valid: true},
		label:     sql.NullString{String: c.Label, Valid: true},
		message:   sql.NullString{String: c.Message, Valid: true},
		rule:      sql.NullString{String: c.Rule, Valid: c.Rule != ""},
	}
	if !c.RetryAfterUntil.IsZero() {
		sc.after = sql.NullInt64{Int64: nanos(c.RetryAfterUntil), Valid: true}
	}
	return sc
}

// storedClass is a chat.Classification as its nullable columns.
type storedClass struct {
	retryable                   sql.NullBool
	class, label, message, rule sql.NullString
	after                       sql.NullInt64
}

func (c storedClass) classification() *chat.Classification {
	if !c.class.Valid {
		return nil
	}
	return &chat.Classification{
		Retryable:       c.retryable.Bool,
		Class:           chat.Class(c.class.String),
		RetryAfterUntil: fromNanos(c.after),
		Label:           c.label.String,
		Message:         c.message.String,
		Rule:            c.rule.String,
	}
}

// Run returns the run with the given id, or ErrNotFound.
func (db *DB) Run(id int64) (stored.Run, error) {
	var r stored.Run
	var created, started, finished sql.NullInt64
	var c storedClass
	err := db.pool().QueryRow(`SELECT id, anchor_id, reply_id, session_id, status, owner, model,
		retryable, retry_class, retry_after_until, retry_label, retry_message, retry_rule,
		attempts, prompt_tokens, completion_tokens, reasoning_tokens, finish_reason,
		created_at, started_at, finished_at
		FROM runs WHERE id = ?`, id).Scan(&r.ID, &r.AnchorID, &r.ReplyID, &r.SessionID, &r.Status,
		&r.Owner, &r.Model, &c.retryable, &c.class, &c.after, &c.label, &c.message, &c.rule,
		&r.Attempts, &r.Usage.PromptTokens, &r.Usage.CompletionTokens, &r.Usage.ReasoningTokens, &r.FinishReason,
		&created, &started, &finished)
	if errors.Is(err, sql.ErrNoRows) {
		return stored.Run{}, fmt.Errorf("run %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return stored.Run{}, err
	}
	r.Retry = c.classification()
	r.CreatedAt, r.StartedAt, r.FinishedAt = fromNanos(created), fromNanos(started), fromNanos(finished)
	return r, nil
}

// StartRun moves a queued run to running and makes this handle its owner: only this handle
// may then append to its reply or finish it, and recovery leaves it alone while this handle
// is open.
func (db *DB) StartRun(id int64) error {
	if err := db.held(); err != nil {
		return err
	}
	res, err := db.pool().Exec(`UPDATE runs SET status = 'running', owner = ?, started_at = ?
		WHERE id = ? AND status = 'queued'`, db.token, nanos(db.clock.Now()), id)
	if err != nil {
		return err
	}
	return db.checkChanged(res, id, chat.StatusRunning)
}

// AppendReply appends streamed text to the reply of a running run owned by this handle: the
// answer's text and the thinking's, either of which may be empty. It writes only the new text,
// a statement per kind, each checking the run is still this handle's.
func (db *DB) AppendReply(runID int64, content, reasoning string) error {
	if content == "" && reasoning == "" {
		return nil
	}
	if err := db.held(); err != nil {
		return err
	}
	if _, ok := db.takeOvers.Load(runID); ok {
		return db.appendFirst(runID, content, reasoning)
	}
	return db.appendChunks(db.appendChunk, runID, content, reasoning)
}

// appendFirst stores the first text of a Retry run and makes its reply the live one, in one
// transaction: the reply never shows without its text, nor the text without the reply.
func (db *DB) appendFirst(runID int64, content, reasoning string) error {
	err := db.write(func(tx *sql.Tx) error {
		if err := takeOver(tx, runID); err != nil {
			return err
		}
		return db.appendChunks(tx.Stmt(db.appendChunk), runID, content, reasoning)
	})
	if err != nil {
		return err
	}
	db.takeOvers.Delete(runID)
	return nil
}

// appendChunks runs the append statement stmt for each kind of text that is not empty.
func (db *DB) appendChunks(stmt *sql.Stmt, runID int64, content, reasoning string) error {
	for _, c := range []struct{ kind, text string }{{"reasoning", reasoning}, {"content", content}} {
		if c.text == "" {
			continue
		}
		res, err := stmt.Exec(runID, c.kind, c.text, db.token)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			if err != nil {
				return err
			}
			continue
		}
		r, err := db.Run(runID)
		if err != nil {
			return err
		}
		return fmt.Errorf("run %d is %s (owner %q), cannot append to its reply: %w", runID, r.Status, r.Owner, ErrTransition)
	}
	return nil
}

// appendChunkSQL adds a chunk of a kind to a run's reply, if the run is running and owned by
// the handle whose token is ?4.
const appendChunkSQL = `INSERT INTO reply_chunks (run_id, seq, kind, text)
	SELECT ?1, coalesce((SELECT max(seq) FROM reply_chunks WHERE run_id = ?1), 0) + 1, ?2, ?3
	WHERE EXISTS (SELECT 1 FROM runs WHERE id = ?1 AND status = 'running' AND owner = ?4)`

// foldChunks moves the streamed chunks of run runID into its reply, in order, and drops them,
// inside tx. Until it has run, a reader takes the reply's text as its stored text and its chunks
// (liveContent, withText); the full-text index, which is kept on the stored text, waits for it.
func foldChunks(tx *sql.Tx, runID int64) error {
	_, err := tx.Exec(`
		UPDATE messages SET
			content = content || coalesce((SELECT group_concat(text, '' ORDER BY seq) FROM reply_chunks
				WHERE run_id = ?1 AND kind = 'content'), ''),
			reasoning = reasoning || coalesce((SELECT group_concat(text, '' ORDER BY seq) FROM reply_chunks
				WHERE run_id = ?1 AND kind = 'reasoning'), '')
		WHERE id = (SELECT reply_id FROM runs WHERE id = ?1)
			AND EXISTS (SELECT 1 FROM reply_chunks WHERE run_id = ?1);
		DELETE FROM reply_chunks WHERE run_id = ?1;`, runID)
	return err
}

// FinishRun ends a run: a queued run may become cancelled or failed, a running run owned by
// this handle succeeded, failed or cancelled. A failed run must carry its classification. Its
// streamed text is then folded into its reply (foldReply).
func (db *DB) FinishRun(id int64, f stored.Finish) error {
	if err := db.endRun(id, f); err != nil {
		return err
	}
	db.foldReply(id)
	return nil
}

// foldReply folds the streamed chunks of run id, which has ended, into its reply, in a
// transaction of its own: the end is stored without waiting on the length of the reply, whose
// text the chunks hold meanwhile. A fold that fails loses nothing: the chunks stay, readers
// read them, and the next fold of ended runs (Search, Open) takes them.
func (db *DB) foldReply(id int64) {
	if err := db.write(func(tx *sql.Tx) error { return foldChunks(tx, id) }); err != nil {
		db.log.Warn("history: folding a reply's streamed text into it", "run", id, "err", err)
	}
}

// foldEnded folds the chunks of every run that has ended into its reply: a parley that stopped
// between storing a run's end and folding its text, or whose fold failed, left them. It writes
// only when there are some, and one held back (another parley's lock, a read-only database) is
// left for the next: until then readers read the chunks.
func (db *DB) foldEnded() {
	ids, err := column[int64](db.pool().Query(`SELECT DISTINCT c.run_id FROM reply_chunks c JOIN runs r ON r.id = c.run_id
		WHERE r.status NOT IN ('queued', 'running')`))
	if err != nil || len(ids) == 0 || db.ReadOnly() {
		return
	}
	for _, id := range ids {
		db.foldReply(id)
	}
}

// endRun stores how run id ended, in one small transaction: its status, classification, usage
// and finish, not its text (foldReply).
func (db *DB) endRun(id int64, f stored.Finish) error {
	switch f.Status {
	case chat.StatusSucceeded, chat.StatusFailed, chat.StatusCancelled:
	default:
		return fmt.Errorf("run %d cannot finish as %q: %w", id, f.Status, ErrTransition)
	}
	if (f.Retry != nil) != (f.Status == chat.StatusFailed) {
		return fmt.Errorf("run %d: a classification goes with a failed run, and only with one", id)
	}
	c := storedOf(f.Retry)
	err := db.write(func(tx *sql.Tx) error {
		now := nanos(db.clock.Now())
		// A queued run has no owner yet, and cannot have succeeded without starting; a running run
		// may only be finished by its owner.
		res, err := tx.Exec(`UPDATE runs SET status = ?1, attempts = ?2, prompt_tokens = ?3,
			completion_tokens = ?4, retryable = ?5, retry_class = ?6, retry_after_until = ?7,
			retry_label = ?8, retry_message = ?9, finished_at = ?10, reasoning_tokens = ?13, finish_reason = ?14, retry_rule = ?15,
			thought_ms = ?16, first_word_ms = ?17
			WHERE id = ?11 AND ((status = 'queued' AND ?1 <> 'succeeded') OR (status = 'running' AND owner = ?12))`,
			f.Status, f.Attempts, f.Usage.PromptTokens, f.Usage.CompletionTokens,
			c.retryable, c.class, c.after, c.label, c.message, now,
			id, db.token, f.Usage.ReasoningTokens, f.FinishReason, c.rule, f.Thought.Milliseconds(), firstWordMS(f.FirstWord))
		if err != nil {
			return err
		}
		if err := db.checkChanged(res, id, f.Status); err != nil {
			return err
		}
		if f.Model != "" {
			if _, err := tx.Exec(`UPDATE runs SET model = ? WHERE id = ?`, f.Model, id); err != nil {
				return err
			}
		}
		_, err = tx.Exec(`UPDATE sessions SET updated_at = ? WHERE id = (SELECT session_id FROM runs WHERE id = ?)`, now, id)
		return err
	})
	if err == nil {
		db.takeOvers.Delete(id) // a retry that ends without output never takes over
	}
	return err
}

// checkChanged turns an update that matched no run into ErrNotFound or ErrTransition.
func (db *DB) checkChanged(res sql.Result, id int64, to chat.Status) error {
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err
	}
	r, err := db.Run(id)
	if err != nil {
		return err
	}
	if r.Status == chat.StatusRunning && r.Owner != db.token {
		return fmt.Errorf("run %d belongs to another parley (owner %q): %w", id, r.Owner, ErrTransition)
	}
	return fmt.Errorf("run %d cannot go from %s to %s: %w", id, r.Status, to, ErrTransition)
}
