package history

import (
	"time"

	"parley/internal/chat"
)

// SessionUsage returns the token usage of every run of a session, summed per model. Runs of
// superseded replies count: their tokens were spent all the same. A run's usage is stored
// when it ends, so a run still going counts nothing yet. With UsageSince it makes DB an
// agent.Ledger.
func (db *DB) SessionUsage(sessionID string) (map[string]chat.Usage, error) {
	return db.usage(`WHERE session_id = ?`, sessionID)
}

// UsageSince returns the token usage of the runs of every session that ended at or after t,
// summed per model.
func (db *DB) UsageSince(t time.Time) (map[string]chat.Usage, error) {
	return db.usage(`WHERE finished_at >= ?`, nanos(t))
}

func (db *DB) usage(where string, args ...any) (map[string]chat.Usage, error) {
	rows, err := db.pool().Query(`SELECT model, sum(prompt_tokens), sum(completion_tokens) FROM runs `+
		where+` GROUP BY model`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]chat.Usage{}
	for rows.Next() {
		var model string
		var u chat.Usage
		if err := rows.Scan(&model, &u.PromptTokens, &u.CompletionTokens); err != nil {
			return nil, err
		}
		if u.PromptTokens+u.CompletionTokens > 0 {
			out[model] = u
		}
	}
	return out, rows.Err()
}
