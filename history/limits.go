package history

import (
	"database/sql"
	"errors"
	"time"

	"parley/internal/chat"
)

// RememberRemaining remembers what the provider of ep said, in r, is left of its rate limits;
// it replaces what was remembered before.
func (db *DB) RememberRemaining(ep chat.EndpointKey, r chat.Remaining) error {
	_, err := db.pool().Exec(`INSERT OR REPLACE INTO endpoint_limits
		(endpoint, model, key_env, requests, request_limit, requests_reset, tokens, token_limit, tokens_reset, said_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, ep.Where(), ep.Model, ep.KeyEnv, r.Requests, r.RequestLimit,
		optionalNanos(r.RequestsReset), r.Tokens, r.TokenLimit, optionalNanos(r.TokensReset), nanos(r.SaidAt))
	return err
}

// Remaining returns what was last remembered of ep's rate limits; ok is false when nothing was.
func (db *DB) Remaining(ep chat.EndpointKey) (r chat.Remaining, ok bool, err error) {
	var reqReset, tokReset, said sql.NullInt64
	err = db.pool().QueryRow(`SELECT requests, request_limit, requests_reset, tokens, token_limit, tokens_reset, said_at
		FROM endpoint_limits WHERE endpoint = ? AND model = ? AND key_env = ?`, ep.Where(), ep.Model, ep.KeyEnv).
		Scan(&r.Requests, &r.RequestLimit, &reqReset, &r.Tokens, &r.TokenLimit, &tokReset, &said)
	if errors.Is(err, sql.ErrNoRows) {
		return chat.Remaining{}, false, nil
	}
	if err != nil {
		return chat.Remaining{}, false, err
	}
	r.RequestsReset, r.TokensReset, r.SaidAt = fromNanos(reqReset), fromNanos(tokReset), fromNanos(said)
	return r, true, nil
}

// optionalNanos is t as stored, 0 for the zero time.
func optionalNanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return nanos(t)
}
