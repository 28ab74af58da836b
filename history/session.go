package history

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"parley/history/stored"
	"parley/internal/chat"
)

// titleRunes is the longest a session title gets.
const titleRunes = 60

const sessionColumns = `s.id, s.title, s.created_at, s.updated_at,
	(SELECT count(*) FROM messages m WHERE m.session_id = s.id
		AND NOT EXISTS (SELECT 1 FROM supersessions x WHERE x.message_id = m.id)),
	s.profile, s.model, coalesce((SELECT f.origin FROM forks f WHERE f.session_id = s.id), '')`

func scanSession(row interface{ Scan(...any) error }) (stored.Session, error) {
	var s stored.Session
	var created, updated sql.NullInt64
	if err := row.Scan(&s.ID, &s.Title, &created, &updated, &s.Messages, &s.Profile, &s.Model, &s.ForkedFrom); err != nil {
		return stored.Session{}, err
	}
	s.CreatedAt, s.UpdatedAt = fromNanos(created), fromNanos(updated)
	return s, nil
}

// scanSessionRow scans one of many rows of sessionColumns into s.
func scanSessionRow(rows *sql.Rows, s *stored.Session) (err error) {
	*s, err = scanSession(rows)
	return err
}

// CreateSession creates an empty session with a new random id. An empty session is listed
// nowhere (see Sessions) until its first message is posted; Post with no session id creates
// the session and its first message together.
func (db *DB) CreateSession() (stored.Session, error) {
	db.upgrade()
	id, err := insertSession(db.pool(), nanos(db.clock.Now()))
	if err != nil {
		return stored.Session{}, err
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

// Session returns the session whose id is id, or the one session whose id starts with id, of
// any length. It returns ErrNotFound when none matches, and an *AmbiguousError when several
// do.
func (db *DB) Session(id string) (stored.Session, error) {
	if id == "" {
		return stored.Session{}, fmt.Errorf("no session id: %w", ErrNotFound)
	}
	s, err := scanSession(db.pool().QueryRow(`SELECT `+sessionColumns+` FROM sessions s WHERE s.id = ?`, id))
	if err == nil || !errors.Is(err, sql.ErrNoRows) {
		return s, db.readError(err)
	}
	rows, err := db.pool().Query(`SELECT id FROM sessions WHERE substr(id, 1, length(?1)) = ?1 ORDER BY id`, id)
	if err != nil {
		return stored.Session{}, err
	}
	ids, err := readRows(rows, func(rows *sql.Rows, id *string) error { return rows.Scan(id) })
	if err != nil {
		return stored.Session{}, err
	}
	switch len(ids) {
	case 0:
		return stored.Session{}, fmt.Errorf("session %q: %w", id, ErrNotFound)
	case 1:
		return db.Session(ids[0])
	}
	// Sorted, the ids that share the longest start are neighbours.
	need := 0
	for i := 1; i < len(ids); i++ {
		need = max(need, commonPrefix(ids[i-1], ids[i])+1)
	}
	return stored.Session{}, &AmbiguousError{Prefix: id, Matches: len(ids), Need: need}
}

// AmbiguousError is the error of a session id prefix that several sessions' ids start with.
// It is an ErrAmbiguous and an ErrNotFound: no one session was found.
type AmbiguousError struct {
	Prefix string
	// Matches counts the sessions found; Need is how many characters of an id tell them apart.
	Matches, Need int
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("session id %q matches %d sessions: give at least %d characters", e.Prefix, e.Matches, e.Need)
}

func (e *AmbiguousError) Is(target error) bool {
	return target == ErrAmbiguous || target == ErrNotFound
}

// commonPrefix is the length of the longest start a and b share.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// hasMessages keeps the sessions something was said in: a session opened and left without a
// word is nobody's conversation.
const hasMessages = `EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id)`

// LatestSession returns the most recently updated session that has messages, or ErrNotFound
// when there is none.
func (db *DB) LatestSession() (stored.Session, error) {
	s, err := scanSession(db.pool().QueryRow(`SELECT ` + sessionColumns + ` FROM sessions s
		WHERE ` + hasMessages + ` ORDER BY s.updated_at DESC, s.rowid DESC LIMIT 1`))
	if errors.Is(err, sql.ErrNoRows) {
		return stored.Session{}, fmt.Errorf("no sessions yet: %w", ErrNotFound)
	}
	return s, err
}

// LatestInteractive returns the session the chat screen last sent in (see SetInteractive) that
// has messages, or ErrNotFound when there is none: a database older than that record has none.
func (db *DB) LatestInteractive() (stored.Session, error) {
	s, err := scanSession(db.pool().QueryRow(`SELECT ` + sessionColumns + ` FROM sessions s
		WHERE s.last_interactive_at IS NOT NULL AND ` + hasMessages + `
		ORDER BY s.last_interactive_at DESC, s.rowid DESC LIMIT 1`))
	if errors.Is(err, sql.ErrNoRows) {
		return stored.Session{}, fmt.Errorf("no session used in the chat screen yet: %w", ErrNotFound)
	}
	return s, err
}

// SetInteractive makes this the chat screen's handle: every run stored through it (a message
// sent, edited, regenerated or retried) marks its session used interactively, in the same
// transaction, for LatestInteractive. Call it before the screen writes.
func (db *DB) SetInteractive() { db.interactive.Store(true) }

// SetSessionModel stores the profile and model session id runs on, for -c and --session to
// continue it there: print mode sets them with each message, the chat screen as /model
// chooses.
func (db *DB) SetSessionModel(id, profile, model string) error {
	res, err := db.pool().Exec(`UPDATE sessions SET profile = ?, model = ? WHERE id = ?`, profile, model, id)
	if err != nil {
		return err
	}
	return sessionFound(res, id)
}

// Sessions returns every session that has messages, the most recently updated first.
func (db *DB) Sessions() ([]stored.Session, error) {
	rows, err := db.pool().Query(`SELECT ` + sessionColumns + ` FROM sessions s
		WHERE ` + hasMessages + ` ORDER BY s.updated_at DESC, s.rowid DESC`)
	if err != nil {
		return nil, db.readError(err)
	}
	out, err := readRows(rows, scanSessionRow)
	return out, db.readError(err)
}

// title makes a session title from an operator message: its first non-blank line, trimmed, cut
// to 60 runes.
// titleText is what titles a session whose first message is content with images: the text,
// or, for images alone, the first image's chip name.
func titleText(content string, images []chat.Image) string {
	if strings.TrimSpace(content) == "" && len(images) > 0 {
		return "▣ " + images[0].Name
	}
	return content
}

func title(content string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(content), "\n")
	line = strings.TrimSpace(line)
	if r := []rune(line); len(r) > titleRunes {
		line = strings.TrimSpace(string(r[:titleRunes]))
	}
	return line
}
