package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"parley/agent/chat"
	"parley/agent/demo"
	"parley/history"
	"parley/tui/sanitize"
)

// parseInterspersed parses flags that may stand before or after positional arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// openHistory opens the database alone, for the commands that need no endpoint.
func openHistory(getenv func(string) string) (*history.DB, error) {
	p, err := resolvePaths(getenv)
	if err != nil {
		return nil, err
	}
	return history.Open(p.db)
}

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

// messageJSON is one message of `parley export --json`.
type messageJSON struct {
	ID         int64                `json:"id"`
	Role       history.Role         `json:"role"`
	Content    string               `json:"content"`
	Status     chat.Status          `json:"status"`
	RunID      *int64               `json:"run_id"`
	AnchorID   *int64               `json:"anchor_id,omitempty"`
	Superseded bool                 `json:"superseded"`
	CreatedAt  time.Time            `json:"created_at"`
	Retry      *chat.Classification `json:"retry"`
}

func exportSession(args []string, stdout io.Writer, getenv func(string) string) (int, error) {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	jsonOut := fs.Bool("json", false, "")
	markdown := fs.Bool("markdown", false, "")
	pos, err := parseInterspersed(fs, args)
	if err != nil || len(pos) != 1 || (*jsonOut && *markdown) {
		return exitUsage, usagef("usage: parley export SESSION [--json|--markdown]")
	}
	db, err := openHistory(getenv)
	if err != nil {
		return exitUsage, err
	}
	defer db.Close()
	sess, err := db.Session(pos[0])
	if errors.Is(err, history.ErrNotFound) {
		return exitUsage, usagef("no session %q: list them with parley sessions", pos[0])
	}
	if err != nil {
		return exitFailed, err
	}
	msgs, err := db.AllMessages(sess.ID)
	if err != nil {
		return exitFailed, err
	}
	if *markdown {
		writeMarkdown(stdout, sess, msgs)
		return exitOK, nil
	}
	out := struct {
		Session  sessionJSON   `json:"session"`
		Messages []messageJSON `json:"messages"`
	}{Session: toSessionJSON(sess), Messages: make([]messageJSON, 0, len(msgs))}
	for _, m := range msgs {
		mj := messageJSON{ID: m.ID, Role: m.Role, Content: m.Content, Status: m.Status, Superseded: m.Superseded, CreatedAt: m.CreatedAt, Retry: m.Retry}
		if m.Role == history.RoleUser {
			mj.Status = "stored"
		}
		if m.RunID != 0 {
			mj.RunID, mj.AnchorID = &m.RunID, &m.AnchorID
		}
		out.Messages = append(out.Messages, mj)
	}
	return exitOK, writeJSON(stdout, out)
}

// writeMarkdown prints a session for reading: live messages, with superseded ones marked.
func writeMarkdown(w io.Writer, sess history.Session, msgs []history.Message) {
	title := sess.Title
	if title == "" {
		title = "Session " + sess.ID
	}
	fmt.Fprintf(w, "# %s\n\n_Session %s, started %s_\n", title, sess.ID, sess.CreatedAt.Local().Format("2006-01-02 15:04"))
	for _, m := range msgs {
		who := "You"
		if m.Role == history.RoleAssistant {
			who = fmt.Sprintf("Reply (run %d, %s)", m.RunID, m.Status)
		}
		if m.Superseded {
			who += " — superseded"
		}
		fmt.Fprintf(w, "\n## %s\n\n%s\n", who, strings.TrimRight(m.Content, "\n"))
		if m.Retry != nil {
			fmt.Fprintf(w, "\n> %s — %s (%s)\n", m.Retry.Label, m.Retry.Message, retryWord(*m.Retry))
		}
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// serveDemo runs the demo endpoint as a process of its own, for tests and benchmarks that
// drive the built binary: `parley demo-server --addr 127.0.0.1:0` prints its base URL.
func serveDemo(args []string, stdout io.Writer) (int, error) {
	fs := flag.NewFlagSet("demo-server", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("addr", "127.0.0.1:0", "")
	pace := fs.Duration("pace", demo.DefaultPace, "")
	tokens := fs.Int("tokens", 0, "")
	if _, err := parseInterspersed(fs, args); err != nil {
		return exitUsage, usagef("usage: parley demo-server [--addr 127.0.0.1:PORT] [--pace 25ms] [--tokens N]")
	}
	srv, err := demo.Start(demo.Options{Addr: *addr, Pace: *pace, Tokens: *tokens})
	if err != nil {
		return exitFailed, err
	}
	defer srv.Close()
	fmt.Fprintln(stdout, srv.URL())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	return exitOK, nil
}
