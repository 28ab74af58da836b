package history

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"parley/history/stored"
	"parley/internal/chat"
)

// RetryRun starts the retry of the failed run runID, hidden like Retry's until it has
// output. A run that called tools is resumed (Resume): the retry goes on from the stored
// results, and no tool runs again; any other run is retried from its anchor (Retry).
func (db *DB) RetryRun(runID int64, model string, queued bool) (stored.Receipt, error) {
	var anchorID int64
	var calls bool
	err := db.pool().QueryRow(`SELECT anchor_id, EXISTS (SELECT 1 FROM tool_calls t WHERE t.run_id = r.id) FROM runs r WHERE id = ?`,
		runID).Scan(&anchorID, &calls)
	if errors.Is(err, sql.ErrNoRows) {
		return stored.Receipt{}, fmt.Errorf("run %d: %w", runID, ErrNotFound)
	}
	if err != nil {
		return stored.Receipt{}, db.readError(err)
	}
	if calls {
		return db.Resume(runID, model, queued)
	}
	return db.Retry(anchorID, model, queued)
}

// Resume starts a new run that goes on from where run runID (over, and its reply live)
// stopped after its last tool calls: its reply begins with the old reply's text up to the
// end of that step, and the old run's calls are copied to it with their results, so the
// request carries them. A call the old run left pending goes with the result that it may
// have run; none is run again. Like Retry, the new reply is hidden until it has output.
func (db *DB) Resume(runID int64, model string, queued bool) (stored.Receipt, error) {
	r := stored.Receipt{Queued: queued, Pending: true}
	err := db.write(func(tx *sql.Tx) error {
		var content string
		var status chat.Status
		var seam sql.NullInt64
		err := tx.QueryRow(`SELECT r.anchor_id, r.status, `+liveContent+`, (SELECT max(t.seam) FROM tool_calls t WHERE t.run_id = r.id)
			FROM runs r JOIN messages m ON m.id = r.reply_id WHERE r.id = ?`, runID).Scan(&r.AnchorID, &status, &content, &seam)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("run %d: %w", runID, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if !seam.Valid || status == chat.StatusQueued || status == chat.StatusRunning {
			return fmt.Errorf("run %d has no tool calls to resume from, or is not over: %w", runID, ErrNothingToContinue)
		}
		now := nanos(db.clock.Now())
		if err := db.newHiddenRun(tx, &r, model, now); err != nil {
			return err
		}
		prefix := content[:min(int(seam.Int64), len(content))]
		if _, err := tx.Exec(`UPDATE messages SET content = ? WHERE id = ?`, prefix, r.ReplyID); err != nil {
			return err
		}
		return copyToolCalls(tx, runID, r.RunID, now)
	})
	if err != nil {
		return stored.Receipt{}, err
	}
	db.takeOvers.Store(r.RunID, true)
	return r, nil
}

// copyToolCalls copies run from's tool calls to run to, with their results. A call from left
// pending goes as failed, with the result that it may have run: it is never run again.
func copyToolCalls(tx *sql.Tx, from, to, now int64) error {
	_, err := tx.Exec(`INSERT INTO tool_calls (run_id, step, seam, call_id, function, arguments, server, tool,
			status, result, is_error, size, created_at, finished_at)
		SELECT ?1, step, seam, call_id, function, arguments, server, tool,
			CASE status WHEN 'pending' THEN 'failed' ELSE status END,
			CASE status WHEN 'pending' THEN ?2 ELSE result END, is_error, size, created_at, coalesce(finished_at, ?3)
		FROM tool_calls WHERE run_id = ?4 ORDER BY id`, to, stored.PendingText, now, from)
	return err
}

// RunContext returns what run runID sends to the model: its anchor's Context, then what the
// run itself has done so far (a resumed run's steps and their results, or the cut text a
// continuation goes on from, as the assistant's turn), with how far it has come.
func (db *DB) RunContext(runID int64) ([]chat.Message, stored.Progress, error) {
	var anchorID, replyID int64
	var content string
	var seam int
	err := db.pool().QueryRow(`SELECT r.anchor_id, r.reply_id, `+liveContent+`, r.seam FROM runs r JOIN messages m ON m.id = r.reply_id WHERE r.id = ?`,
		runID).Scan(&anchorID, &replyID, &content, &seam)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, stored.Progress{}, fmt.Errorf("run %d: %w", runID, ErrNotFound)
	}
	if err != nil {
		return nil, stored.Progress{}, db.readError(err)
	}
	msgs, err := db.Context(anchorID)
	if err != nil {
		return nil, stored.Progress{}, err
	}
	calls, err := db.ToolCalls(runID)
	if err != nil {
		return nil, stored.Progress{}, err
	}
	if len(calls) == 0 {
		if seam > 0 && content != "" {
			// A continuation (Continue): the cut text, for the model to go on from.
			msgs = append(slices.Clip(msgs), chat.Message{Role: chat.RoleAssistant, Content: content})
		}
		return msgs, stored.Progress{}, nil
	}
	done := withTools(chat.Message{Role: chat.RoleAssistant, Content: content}, calls)
	return append(slices.Clip(msgs), done...), stored.Progress{Steps: calls[len(calls)-1].Step + 1, Seam: len(content)}, nil
}
