package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"parley/history"
	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/config"
	"parley/internal/sanitize"
)

// openHistory opens the database alone, for the commands that need no endpoint: they work
// whatever state config.toml is in.
func openHistory(ios *IO) (*history.DB, error) {
	p, err := config.ResolvePaths(ios.Getenv)
	if err != nil {
		return nil, err
	}
	return history.Open(p.DB, history.WithClock(ios.Clock))
}

// openSession opens the history and finds the session id names (whole or a prefix): how every
// subcommand on one session begins. A wrong id is a usage error. The caller closes the DB.
func openSession(ios *IO, id string) (*history.DB, stored.Session, error) {
	db, err := openHistory(ios)
	if err != nil {
		return nil, stored.Session{}, err
	}
	s, err := findSession(db, id)
	if err != nil {
		db.Close()
		return nil, stored.Session{}, err
	}
	return db, s, nil
}

// sessionJSON is one session of `parley sessions --json` and `parley export --json`.
type sessionJSON struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	Messages  int       `json:"messages"`
	// ForkedFrom is the session this one was forked from (parley fork, /fork).
	ForkedFrom string `json:"forked_from,omitempty"`
}

func toSessionJSON(s stored.Session) sessionJSON {
	return sessionJSON{ID: s.ID, Title: s.Title, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, Messages: s.Messages,
		ForkedFrom: s.ForkedFrom}
}

// listSessions is `parley sessions [--json]`: every session, the latest first; `parley
// sessions rm` and `parley sessions title` change them.
func listSessions(ctx context.Context, args []string, ios *IO) (int, error) {
	if len(args) > 0 {
		if sub, ok := sessionCommands[args[0]]; ok {
			return sub(ctx, args[1:], ios)
		}
	}
	pos, jsonOut, err := parseJSONFlag("sessions", args)
	if err != nil || len(pos) > 0 {
		return chat.ExitUsage, usagef("usage: parley sessions [--json] | parley sessions rm ID… | parley sessions title ID TEXT")
	}
	db, err := openHistory(ios)
	if err != nil {
		return chat.ExitUsage, err
	}
	defer db.Close()
	sessions, err := db.Sessions()
	if err != nil {
		return chat.ExitFailed, err
	}
	if jsonOut {
		out := make([]sessionJSON, 0, len(sessions))
		for _, s := range sessions {
			out = append(out, toSessionJSON(s))
		}
		return chat.ExitOK, chat.WriteJSON(ios.Out, out)
	}
	for _, s := range sessions {
		title := s.Title
		if title == "" {
			title = "(empty)"
		}
		if s.ForkedFrom != "" {
			title += "  (forked from " + s.ForkedFrom + ")"
		}
		fmt.Fprintf(ios.Out, "%s  %s  %3d msgs  %s\n", s.ID, chat.FormatDate(s.UpdatedAt), s.Messages, sanitize.String(title))
	}
	return chat.ExitOK, nil
}

// sessionCommands are the subcommands of `parley sessions`; without one it lists them.
var sessionCommands = map[string]command{
	"rm":    removeSessions,
	"title": titleSession,
}

// minRemovePrefix is the shortest prefix of a session id rm takes: one or two characters are
// too easily typed for another session.
const minRemovePrefix = 4

// removeSessions is `parley sessions rm ID…`: each session deleted whole, messages, runs and
// search index. Every id is found before any session is deleted, so a typo deletes nothing;
// on a terminal it asks first, while a script's rm deletes as told.
func removeSessions(ctx context.Context, ids []string, ios *IO) (int, error) {
	if len(ids) == 0 {
		return chat.ExitUsage, usagef("usage: parley sessions rm ID… (parley sessions lists them)")
	}
	db, err := openHistory(ios)
	if err != nil {
		return chat.ExitUsage, err
	}
	defer db.Close()
	var found []stored.Session
	for _, id := range ids {
		s, err := findSession(db, id)
		if err != nil {
			return chat.ExitUsage, err
		}
		if len(id) < minRemovePrefix && id != s.ID {
			return chat.ExitUsage, usagef("session id %q is too short to delete by: give at least %d characters of %s", id, minRemovePrefix, s.ID)
		}
		found = append(found, s)
	}
	if ios.InTerminal && !confirmRemove(ios, found) {
		fmt.Fprintln(ios.Out, "nothing deleted")
		return chat.ExitFailed, nil
	}
	for _, s := range found {
		if err := db.DeleteSession(s.ID); err != nil {
			if errors.Is(err, history.ErrStreaming) {
				return chat.ExitFailed, fmt.Errorf("session %s is streaming a reply in another parley: stop it there first", s.ID)
			}
			return chat.ExitFailed, err
		}
		fmt.Fprintf(ios.Out, "deleted %s  %s\n", s.ID, sanitize.String(s.Title))
	}
	return chat.ExitOK, nil
}

// confirmRemove asks on the terminal whether to delete found, and reports whether the answer
// was yes.
func confirmRemove(ios *IO, found []stored.Session) bool {
	for _, s := range found {
		fmt.Fprintf(ios.ErrOut, "%s  %s\n", s.ID, sanitize.String(s.Title))
	}
	fmt.Fprintf(ios.ErrOut, "delete %s? [y/N] ", chat.Plural(len(found), "session"))
	answer, _ := bufio.NewReader(ios.In).ReadString('\n')
	answer = strings.ToLower(strings.TrimSpace(answer))
	return answer == "y" || answer == "yes"
}

// titleSession is `parley sessions title ID TEXT`: the session renamed.
func titleSession(ctx context.Context, args []string, ios *IO) (int, error) {
	if len(args) < 2 {
		return chat.ExitUsage, usagef("usage: parley sessions title ID TEXT")
	}
	db, s, err := openSession(ios, args[0])
	if err != nil {
		return chat.ExitUsage, err
	}
	defer db.Close()
	if err := db.SetTitle(s.ID, strings.Join(args[1:], " ")); err != nil {
		return chat.ExitUsage, fmt.Errorf("%v: give a title with words in it", err)
	}
	s, err = db.Session(s.ID)
	if err != nil {
		return chat.ExitFailed, err
	}
	fmt.Fprintf(ios.Out, "%s  %s\n", s.ID, sanitize.String(s.Title))
	return chat.ExitOK, nil
}

// findSession finds the session id (or a prefix of it, of any length), with the fix when there
// is none: every command that takes a session id says the same of one it cannot use.
func findSession(db *history.DB, id string) (stored.Session, error) {
	s, err := db.Session(id)
	var amb *history.AmbiguousError
	switch {
	case errors.As(err, &amb):
		return s, usagef("%v", amb)
	case errors.Is(err, history.ErrNotFound):
		return s, usagef("no session %q: list them with parley sessions", id)
	}
	return s, err
}
