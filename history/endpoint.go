package history

import (
	"database/sql"
	"errors"
	"time"

	"parley/internal/chat"
)

// RememberWait remembers c, a failure whose provider said when to come back, for ep. A later
// wait replaces an earlier one.
func (db *DB) RememberWait(ep chat.EndpointKey, c chat.Classification, saidAt time.Time) error {
	_, err := db.pool().Exec(`INSERT OR REPLACE INTO endpoint_waits
		(endpoint, model, key_env, until, said_at, retryable, retry_class, retry_label, retry_message)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, ep.Where(), ep.Model, ep.KeyEnv, nanos(c.RetryAfterUntil),
		nanos(saidAt), c.Retryable, string(c.Class), c.Label, c.Message)
	return err
}

// Wait returns the wait remembered for ep that has not passed at now: the classification of
// the failure that said it (RetryAfterUntil set) and when it was said; ok is false when there
// is none. A wait that has passed is forgotten.
func (db *DB) Wait(ep chat.EndpointKey, now time.Time) (c chat.Classification, saidAt time.Time, ok bool, err error) {
	var until, said int64
	var class string
	err = db.pool().QueryRow(`SELECT until, said_at, retryable, retry_class, retry_label, retry_message
		FROM endpoint_waits WHERE endpoint = ? AND model = ? AND key_env = ?`, ep.Where(), ep.Model, ep.KeyEnv).
		Scan(&until, &said, &c.Retryable, &class, &c.Label, &c.Message)
	if errors.Is(err, sql.ErrNoRows) {
		return chat.Classification{}, time.Time{}, false, nil
	}
	if err != nil {
		return chat.Classification{}, time.Time{}, false, err
	}
	c.Class, c.RetryAfterUntil = chat.Class(class), time.Unix(0, until)
	if !c.RetryAfterUntil.After(now) {
		return chat.Classification{}, time.Time{}, false, db.ForgetWait(ep)
	}
	return c, time.Unix(0, said), true, nil
}

// ForgetWait forgets the wait remembered for ep: its time passed, or a request succeeded. It
// writes only when there is one: every reply that succeeds forgets, and a write would wait out
// another parley's lock at each reply's end.
func (db *DB) ForgetWait(ep chat.EndpointKey) error {
	var n int
	err := db.pool().QueryRow(`SELECT count(*) FROM endpoint_waits WHERE endpoint = ? AND model = ? AND key_env = ?`,
		ep.Where(), ep.Model, ep.KeyEnv).Scan(&n)
	if err != nil || n == 0 {
		return err
	}
	_, err = db.pool().Exec(`DELETE FROM endpoint_waits WHERE endpoint = ? AND model = ? AND key_env = ?`,
		ep.Where(), ep.Model, ep.KeyEnv)
	return err
}

// RecordSend counts a request sent to where (the base URL and route, EndpointKey.Where), for
// the retry budget, and forgets the sends older than keep.
func (db *DB) RecordSend(where string, at time.Time, retry bool, keep time.Duration) error {
	_, err := db.pool().Exec(`DELETE FROM endpoint_sends WHERE at < ?1;
		INSERT INTO endpoint_sends (endpoint, at, retry) VALUES (?2, ?3, ?4)`,
		nanos(at.Add(-keep)), where, nanos(at), retry)
	return err
}

// TakeRetry asks allow, with the sends to where since now-window, whether a retry may be
// sent at now, and counts it as sent when it may; the two happen in one transaction, so
// parleys sending at once never share the budget's last retry. When it may not, at is when
// allow says it will.
func (db *DB) TakeRetry(where string, now time.Time, window time.Duration,
	allow func(sends []chat.Send, now time.Time) (bool, time.Time)) (ok bool, at time.Time, err error) {
	// Every transaction begins IMMEDIATE (see Open): one budget reader-writer at a time.
	err = db.write(func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT at, retry FROM endpoint_sends WHERE endpoint = ? AND at > ?`,
			where, nanos(now.Add(-window)))
		if err != nil {
			return err
		}
		sends, err := readRows(rows, func(rows *sql.Rows, s *chat.Send) error {
			var at int64
			err := rows.Scan(&at, &s.Retry)
			s.At = time.Unix(0, at)
			return err
		})
		if err != nil {
			return err
		}
		if ok, at = allow(sends, now); !ok {
			return nil
		}
		_, err = tx.Exec(`INSERT INTO endpoint_sends (endpoint, at, retry) VALUES (?, ?, 1)`, where, nanos(now))
		return err
	})
	if err != nil {
		return false, time.Time{}, err
	}
	if ok {
		at = now
	}
	return ok, at, nil
}
