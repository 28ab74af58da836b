package history

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Session is one conversation.
type Session struct {
	// ID is 8 lowercase hex characters, chosen at random.
	ID string
	// Title is the first line of the session's first operator message, at most 60 runes;
	// empty until the operator posts.
	Title     string
	CreatedAt time.Time
	// UpdatedAt is when a message was last posted or a run last ended.
	UpdatedAt time.Time
	// Messages counts the live (not superseded) messages.
	Messages int
}

// MinPrefix is the shortest session id prefix Session accepts.
const MinPrefix = 4

// titleRunes is the longest a session title gets.
const titleRunes = 60

const sessionColumns = `s.id, s.title, s.created_at, s.updated_at,
	(SELECT count(*) FROM messages m WHERE m.session_id = s.id
		AND NOT EXISTS (SELECT 1 FROM supersessions x WHERE x.message_id = m.id))`

func scanSession(row interface{ Scan(...any) error }) (Session, error) {
	var s Session
	var created, updated sql.NullInt64
	if err := row.Scan(&s.ID, &s.Title, &created, &updated, &s.Messages); err != nil {
		return Session{}, err
	}
	s.CreatedAt, s.UpdatedAt = fromNanos(created), fromNanos(updated)
	return s, nil
}

// scanSessionRow scans one of many rows of sessionColumns into s.
func scanSessionRow(rows *sql.Rows, s *Session) (err error) {
	*s, err = scanSession(rows)
	return err
}

// CreateSession creates an empty session with a new random id. An empty session is listed
// nowhere (see Sessions) until its first message is posted; Post with no session id creates
// the session and its first message together.
func (db *DB) CreateSession() (Session, error) {
	id, err := insertSession(db.sql, nanos(time.Now()))
	if err != nil {
		return Session{}, err
	}
	return db.Session(id)
}

// insertSession inserts a session with a new random id and returns the id.
func insertSession(db interface {
	Exec(string, ...any) (sql.Result, error)
}, now int64) (string, error) {
	// Ids are random: retry the rare collision rather than hand out a shared one.
	for range 16 {
		b := make([]byte, 4)
		rand.Read(b)
		id := hex.EncodeToString(b)
		res, err := db.Exec(`INSERT OR IGNORE INTO sessions (id, created_at, updated_at) VALUES (?, ?, ?)`,
			id, now, now)
		if err != nil {
			return "", err
		}
		if n, err := res.RowsAffected(); err != nil {
			return "", err
		} else if n == 1 {
			return id, nil
		}
	}
	return "", errors.New("no free session id after 16 tries")
}

// sessionFound turns an update of session id that matched no row into ErrNotFound.
func sessionFound(res sql.Result, id string) error {
	n, err := res.RowsAffected()
	if err == nil && n == 0 {
		err = fmt.Errorf("session %q: %w", id, ErrNotFound)
	}
	return err
}

// Session returns the session whose id is id, or whose id alone starts with id when id has at
// least MinPrefix characters. It returns ErrNotFound when none matches, ErrTooShort for a
// shorter id that matches none exactly, and ErrAmbiguous when several match (both are also
// ErrNotFound).
func (db *DB) Session(id string) (Session, error) {
	s, err := scanSession(db.sql.QueryRow(`SELECT `+sessionColumns+` FROM sessions s WHERE s.id = ?`, id))
	if err == nil || !errors.Is(err, sql.ErrNoRows) {
		return s, db.readError(err)
	}
	if len(id) < MinPrefix {
		return Session{}, fmt.Errorf("session %q %w", id, ErrTooShort)
	}
	rows, err := db.sql.Query(`SELECT `+sessionColumns+` FROM sessions s
		WHERE substr(s.id, 1, length(?1)) = ?1 LIMIT 2`, id)
	if err != nil {
		return Session{}, err
	}
	found, err := readRows(rows, scanSessionRow)
	if err != nil {
		return Session{}, err
	}
	switch len(found) {
	case 0:
		return Session{}, fmt.Errorf("session %q: %w", id, ErrNotFound)
	case 1:
		return found[0], nil
	}
	return Session{}, fmt.Errorf("session id prefix %q %w", id, ErrAmbiguous)
}

// hasMessages keeps the sessions something was said in: a session opened and left without a
// word is nobody's conversation.
const hasMessages = `EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id)`

// LatestSession returns the most recently updated session that has messages, or ErrNotFound
// when there is none.
func (db *DB) LatestSession() (Session, error) {
	s, err := scanSession(db.sql.QueryRow(`SELECT ` + sessionColumns + ` FROM sessions s
		WHERE ` + hasMessages + ` ORDER BY s.updated_at DESC, s.rowid DESC LIMIT 1`))
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, fmt.Errorf("no sessions yet: %w", ErrNotFound)
	}
	return s, err
}

// Sessions returns every session that has messages, the most recently updated first.
func (db *DB) Sessions() ([]Session, error) {
	rows, err := db.sql.Query(`SELECT ` + sessionColumns + ` FROM sessions s
		WHERE ` + hasMessages + ` ORDER BY s.updated_at DESC, s.rowid DESC`)
	if err != nil {
		return nil, db.readError(err)
	}
	out, err := readRows(rows, scanSessionRow)
	return out, db.readError(err)
}

// title makes a session title from an operator message: its first non-blank line, trimmed, cut
// to 60 runes.
func title(content string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(content), "\n")
	line = strings.TrimSpace(line)
	if r := []rune(line); len(r) > titleRunes {
		line = strings.TrimSpace(string(r[:titleRunes]))
	}
	return line
}
