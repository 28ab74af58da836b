package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"parley/agent/config"
	"parley/history"
	"parley/tui/sanitize"
)

// openHistory opens the database alone, for the commands that need no endpoint: they work
// whatever state config.toml is in.
func openHistory(getenv func(string) string) (*history.DB, error) {
	p, err := config.ResolvePaths(getenv)
	if err != nil {
		return nil, err
	}
	return history.Open(p.DB)
}

// sessionJSON is one session of `parley sessions --json` and `parley export --json`.
type sessionJSON struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	Messages  int       `json:"messages"`
}

func toSessionJSON(s history.Session) sessionJSON {
	return sessionJSON{ID: s.ID, Title: s.Title, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, Messages: s.Messages}
}

// listSessions is `parley sessions [--json]`: every session, the latest first.
func listSessions(args []string, stdout io.Writer, getenv func(string) string) (int, error) {
	fs := flag.NewFlagSet("sessions", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	jsonOut := fs.Bool("json", false, "")
	pos, err := parseInterspersed(fs, args)
	if err != nil || len(pos) > 0 {
		return exitUsage, usagef("usage: parley sessions [--json]")
	}
	db, err := openHistory(getenv)
	if err != nil {
		return exitUsage, err
	}
	defer db.Close()
	sessions, err := db.Sessions()
	if err != nil {
		return exitFailed, err
	}
	if *jsonOut {
		out := make([]sessionJSON, 0, len(sessions))
		for _, s := range sessions {
			out = append(out, toSessionJSON(s))
		}
		return exitOK, writeJSON(stdout, out)
	}
	for _, s := range sessions {
		title := s.Title
		if title == "" {
			title = "(empty)"
		}
		fmt.Fprintf(stdout, "%s  %s  %3d msgs  %s\n", s.ID, s.UpdatedAt.Local().Format("2006-01-02 15:04"), s.Messages, sanitize.String(title))
	}
	return exitOK, nil
}
