package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"parley/history/stored"
	"parley/internal/sanitize"
)

// This file narrows the session picker as the operator types: to the sessions whose title
// holds the words typed, or one of whose messages does (history's full-text search).

// pickerSearchLimit is the most messages one search of the picker reads.
const pickerSearchLimit = 500

// pickerSearch is the search of the sessions' messages for the query typed in the picker.
type pickerSearch struct {
	// queryGen counts the queries typed; a search for an earlier one is dropped.
	queryGen int
	// hits maps each session with a matching message to its best match.
	hits map[string]stored.Hit
}

// pickerSearchMsg carries the sessions whose messages match the picker's query number gen.
type pickerSearchMsg struct {
	gen  int
	hits map[string]stored.Hit
	err  error
}

// shown returns the sessions the picker lists now: all of them, or those the query matches.
func (p *picker) shown() []stored.Session { return p.kept }

// refilter lists the sessions whose title holds the words of the query, or whose messages
// matched it.
func (p *picker) refilter() {
	words := strings.Fields(strings.ToLower(p.query))
	p.narrow(func(s stored.Session) bool {
		title := strings.ToLower(s.Title)
		inTitle := true
		for _, w := range words {
			inTitle = inTitle && strings.Contains(title, w)
		}
		_, hit := p.hits[s.ID]
		return inTitle || hit
	})
}

// searchPicker searches the sessions' messages for the query just typed in the picker.
func (m *Model) searchPicker() tea.Cmd {
	p := &m.picker
	p.hits = nil
	p.refilter()
	p.queryGen++
	q := p.query
	if strings.TrimSpace(q) == "" {
		return nil
	}
	db, gen := m.db, p.queryGen
	return func() tea.Msg {
		found, err := db.Search(q, pickerSearchLimit)
		hits := map[string]stored.Hit{}
		for _, h := range found {
			if _, seen := hits[h.SessionID]; !seen {
				hits[h.SessionID] = h
			}
		}
		return pickerSearchMsg{gen: gen, hits: hits, err: err}
	}
}

// handlePickerSearch narrows the picker to the search's sessions, if its query is still the
// one typed.
func (m *Model) handlePickerSearch(msg pickerSearchMsg) tea.Cmd {
	p := &m.picker
	if m.focus != focusPicker || msg.gen != p.queryGen {
		return nil
	}
	if msg.err != nil {
		m.setNotice("could not search the sessions: "+msg.err.Error(), true)
		return nil
	}
	p.hits = msg.hits
	p.refilter()
	p.cursor = min(p.cursor, max(0, len(p.shown())-1))
	return nil
}

// The marks of a match while an excerpt is made safe to show: sanitizing drops the control
// characters history marks matches with, and keeps these (private use) characters.
const (
	markStart = "\ue000"
	markEnd   = "\ue001"
)

// excerpt is the best match in session id's messages on one line of at most width cells, the
// matched words bold and the words before the first match cut short so that it shows; empty
// when the session matched by its title alone.
func (p *picker) excerpt(id string, width int, st *theme) string {
	h, ok := p.hits[id]
	if !ok || width <= 0 {
		return ""
	}
	e := strings.NewReplacer(markStart, "", markEnd, "").Replace(h.Excerpt)
	e = strings.NewReplacer(stored.HitStart, markStart, stored.HitEnd, markEnd).Replace(e)
	e = strings.Join(strings.Fields(sanitize.String(e)), " ")
	if before, _, found := strings.Cut(e, markStart); found {
		if r := []rune(before); len(r) > width/3 {
			e = "…" + string(r[len(r)-width/3:]) + e[len(before):]
		}
	}
	var b strings.Builder
	for i, part := range strings.Split(e, markStart) {
		if i == 0 {
			b.WriteString(part)
			continue
		}
		match, rest, _ := strings.Cut(part, markEnd)
		b.WriteString(st.ReplyLabel.Render(match) + rest)
	}
	return ansi.Truncate(b.String(), width, "…")
}
