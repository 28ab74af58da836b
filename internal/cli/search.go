package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/sanitize"
)

// searchJSON is one match of `parley search --json`.
type searchJSON struct {
	SessionID string    `json:"session_id"`
	Title     string    `json:"title"`
	MessageID int64     `json:"message_id"`
	Role      chat.Role `json:"role"`
	CreatedAt time.Time `json:"created_at"`
	// Excerpt is the text around the matches; Matches are the byte ranges of the matched
	// words in it, [start, end).
	Excerpt string   `json:"excerpt"`
	Matches [][2]int `json:"matches"`
}

// search is `parley search WORDS [--json] [--limit N]`: the live messages of every session
// that hold all the words (the last may be the start of a word), best first, each with its
// session, time and an excerpt whose matches are bold on a terminal. As grep does, it exits 1
// when nothing matches; when --limit left matches out, stderr says how many.
func search(ctx context.Context, args []string, ios *IO) (int, error) {
	fs := quietFlags("search")
	jsonOut := fs.Bool("json", false, "")
	limit := fs.Int("limit", 20, "")
	words, err := parseInterspersed(fs, args)
	if err != nil || len(words) == 0 || *limit < 1 {
		return chat.ExitUsage, usagef("usage: parley search WORDS [--json] [--limit N]")
	}
	db, err := openHistory(ios)
	if err != nil {
		return chat.ExitUsage, err
	}
	defer db.Close()
	query := strings.Join(words, " ")
	hits, err := db.Search(query, *limit)
	if err != nil {
		return chat.ExitFailed, err
	}
	if err := printHits(ios, hits, *jsonOut); err != nil {
		return chat.ExitFailed, err
	}
	switch len(hits) {
	case 0:
		return chat.ExitFailed, errors.New("no matches")
	case *limit:
		all, err := db.CountMatches(query)
		if err != nil {
			return chat.ExitFailed, err
		}
		if all > len(hits) {
			fmt.Fprintf(ios.ErrOut, "… %d more — --limit %d to see them\n", all-len(hits), all)
		}
	}
	return chat.ExitOK, nil
}

// printHits writes the hits of a search: as JSON, or one a line, matches bold on a terminal.
func printHits(ios *IO, hits []stored.Hit, jsonOut bool) error {
	if jsonOut {
		out := make([]searchJSON, 0, len(hits))
		for _, h := range hits {
			excerpt, matches := unmark(h.Excerpt)
			out = append(out, searchJSON{SessionID: h.SessionID, Title: h.Title, MessageID: h.MessageID, Role: h.Role,
				CreatedAt: h.CreatedAt, Excerpt: excerpt, Matches: matches})
		}
		return chat.WriteJSON(ios.Out, out)
	}
	out, bold := ios.Out, ios.OutTerminal
	if bold {
		// Bold is parley's own sequence: the excerpt is neutralised part by part instead.
		out = sanitize.Raw(ios.Out)
	}
	for _, h := range hits {
		who := "you"
		switch h.Role {
		case chat.RoleAssistant:
			who = "reply"
		case chat.RoleSystem:
			who = "system"
		}
		fmt.Fprintf(out, "%s  %s  %-6s %s\n", h.SessionID, chat.FormatDate(h.CreatedAt), who, excerptLine(h.Excerpt, bold))
	}
	return nil
}

// oneLine puts an excerpt's line breaks and tabs as spaces.
var oneLine = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ")

// excerptLine is an excerpt on one line, its control sequences neutralised, its matches bold
// when bold is set and unmarked otherwise.
func excerptLine(excerpt string, bold bool) string {
	var b strings.Builder
	for i, part := range splitMarks(excerpt) {
		part = sanitize.String(oneLine.Replace(part))
		if i%2 == 1 && bold {
			part = "\x1b[1m" + part + "\x1b[22m"
		}
		b.WriteString(part)
	}
	return strings.TrimSpace(b.String())
}

// unmark returns an excerpt without its match marks, and the byte range of each match in it.
func unmark(excerpt string) (string, [][2]int) {
	var b strings.Builder
	matches := [][2]int{}
	for i, part := range splitMarks(excerpt) {
		if i%2 == 1 {
			matches = append(matches, [2]int{b.Len(), b.Len() + len(part)})
		}
		b.WriteString(part)
	}
	return b.String(), matches
}

// splitMarks splits an excerpt at its match marks: the parts at odd indexes are matches.
func splitMarks(excerpt string) []string {
	var parts []string
	for {
		before, after, ok := strings.Cut(excerpt, stored.HitStart)
		parts = append(parts, before)
		if !ok {
			return parts
		}
		match, rest, _ := strings.Cut(after, stored.HitEnd)
		parts = append(parts, match)
		excerpt = rest
	}
}
