package history

import (
	"cmp"
	"database/sql"
	"errors"
	"fmt"

	"parley/history/stored"
	"parley/internal/chat"
)

// BeginToolCall stores call, asked for in step step of run runID (a run this handle owns),
// as pending, before it runs: a call found pending later is never run again. seam is the
// byte of the reply's content where the step's text ended; server and tool name what will
// run. The first output of a Retry run takes its place here, as its first text would.
func (db *DB) BeginToolCall(runID int64, step, seam int, call chat.ToolCall, server, tool string) (int64, error) {
	var id int64
	err := db.write(func(tx *sql.Tx) error {
		var owner string
		if err := tx.QueryRow(`SELECT owner FROM runs WHERE id = ?`, runID).Scan(&owner); errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("run %d: %w", runID, ErrNotFound)
		} else if err != nil {
			return err
		}
		if owner != db.token {
			return fmt.Errorf("run %d is not this parley's to store calls for: %w", runID, ErrTransition)
		}
		if _, ok := db.takeOvers.Load(runID); ok {
			if err := takeOver(tx, runID); err != nil {
				return err
			}
		}
		res, err := tx.Exec(`INSERT INTO tool_calls (run_id, step, seam, call_id, function, arguments, server, tool, status, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)`,
			runID, step, seam, call.ID, call.Function, call.Arguments, server, tool, nanos(db.clock.Now()))
		if err != nil {
			return err
		}
		id, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return 0, db.readError(err) // a storage fault named; the others as they are
	}
	db.takeOvers.Delete(runID)
	return id, nil
}

// EndToolCall stores what became of the pending call id. A call that has ended is not
// changed again.
func (db *DB) EndToolCall(id int64, r chat.ToolResult) error {
	if r.Status == chat.ToolPending || r.Status == "" {
		return fmt.Errorf("tool call %d: an end needs a status other than pending", id)
	}
	err := db.write(func(tx *sql.Tx) error {
		res, err := tx.Exec(`UPDATE tool_calls SET status = ?, server = coalesce(nullif(?, ''), server),
			tool = coalesce(nullif(?, ''), tool), result = ?, is_error = ?, size = ?, finished_at = ?
			WHERE id = ? AND status = 'pending'`,
			r.Status, r.Server, r.Tool, r.Text, r.IsError, r.Size, nanos(db.clock.Now()), id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return cmp.Or(err, fmt.Errorf("tool call %d is not pending: %w", id, ErrNotFound))
		}
		return nil
	})
	return db.readError(err)
}

// ToolCalls returns the tool calls of run runID, in the order they were asked for.
func (db *DB) ToolCalls(runID int64) ([]stored.ToolCall, error) {
	rows, err := db.pool().Query(toolCallQuery+` WHERE t.run_id = ? ORDER BY t.id`, runID)
	if err != nil {
		return nil, db.readError(err)
	}
	calls, err := readRows(rows, func(rows *sql.Rows, c *stored.ToolCall) error { return scanToolCall(rows, c) })
	return calls, db.readError(err)
}

// toolCallColumns are the columns of a tool call t that scanToolCall reads, in its order.
const toolCallColumns = `t.id, t.run_id, t.step, t.seam, t.call_id, t.function, t.arguments, t.server, t.tool,
	t.status, t.result, t.is_error, t.size, t.created_at, t.finished_at`

const toolCallQuery = `SELECT ` + toolCallColumns + ` FROM tool_calls t`

// scanToolCall reads a row of toolCallColumns into c, then any further columns into also.
func scanToolCall(rows *sql.Rows, c *stored.ToolCall, also ...any) error {
	var created, finished sql.NullInt64
	err := rows.Scan(append([]any{&c.ID, &c.RunID, &c.Step, &c.Seam, &c.Call.ID, &c.Call.Function, &c.Call.Arguments,
		&c.Result.Server, &c.Result.Tool, &c.Result.Status, &c.Result.Text, &c.Result.IsError, &c.Result.Size,
		&created, &finished}, also...)...)
	c.CreatedAt, c.FinishedAt = fromNanos(created), fromNanos(finished)
	return err
}

// toolCallsOfReplies returns the tool calls of the runs whose replies are in session
// sessionID with ids from first to last, by reply id.
func toolCallsOfReplies(q querier, sessionID string, first, last int64) (map[int64][]stored.ToolCall, error) {
	rows, err := q.Query(`SELECT `+toolCallColumns+`, r.reply_id
		FROM tool_calls t JOIN runs r ON r.id = t.run_id
		WHERE r.session_id = ? AND r.reply_id BETWEEN ? AND ? ORDER BY t.id`, sessionID, first, last)
	if err != nil {
		return nil, err
	}
	out := map[int64][]stored.ToolCall{}
	_, err = readRows(rows, func(rows *sql.Rows, c *stored.ToolCall) error {
		var reply int64
		err := scanToolCall(rows, c, &reply)
		out[reply] = append(out[reply], *c)
		return err
	})
	return out, err
}

// withTools is reply m as the turns it was sent in: each step that called tools an assistant
// message with its text and calls, followed by the calls' results; then the text after the
// last step, when there is any. A reply without calls is itself.
func withTools(m chat.Message, calls []stored.ToolCall) []chat.Message {
	if len(calls) == 0 {
		return []chat.Message{m}
	}
	var out []chat.Message
	prev := 0
	for i := 0; i < len(calls); {
		step := calls[i].Step
		seam := min(max(calls[i].Seam, prev), len(m.Content))
		turn := chat.Message{Role: chat.RoleAssistant, Content: m.Content[prev:seam], Pinned: m.Pinned}
		if len(out) == 0 {
			turn.Reasoning = m.Reasoning
		}
		var results []chat.Message
		for ; i < len(calls) && calls[i].Step == step; i++ {
			turn.ToolCalls = append(turn.ToolCalls, calls[i].Call)
			results = append(results, chat.Message{Role: chat.RoleTool, ToolCallID: calls[i].Call.ID,
				Content: calls[i].SentText(), Pinned: m.Pinned})
		}
		out = append(append(out, turn), results...)
		prev = seam
	}
	if rest := m.Content[prev:]; rest != "" {
		out = append(out, chat.Message{Role: chat.RoleAssistant, Content: rest, Pinned: m.Pinned})
	}
	return out
}
