package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"parley/internal/sanitize"
	"parley/tui/filterlist"
)

// This file owns / while replies are selected: a text found in the session's messages, the
// nearest earlier one first, and found again with n (earlier) and N (later). Opening a
// session from a search in /sessions finds its matching message the same way.

// finding is the text looked for in the transcript.
type finding struct {
	// typing is set while the text is being typed; query is the text, kept for n and N once
	// it was looked for.
	typing bool
	query  string
	// reveal is the message a session opened from a search is to show, once it is read; 0
	// when none waits.
	reveal int64
}

// startFind is /: the text to find is typed on the status line.
func (m *Model) startFind() {
	m.finding.typing, m.finding.query = true, ""
	m.showFindPrompt()
}

// showFindPrompt shows the text being typed and what ends it.
func (m *Model) showFindPrompt() {
	m.setNotice("find: "+sanitize.String(m.finding.query)+"▏ · enter finds · esc cancels", false)
}

// findKey handles a key while the text to find is typed: enter finds it, esc gives up, other
// keys edit it.
func (m *Model) findKey(msg tea.KeyPressMsg) {
	f := &m.finding
	switch {
	case key.Matches(msg, m.keys.Picker.Choose):
		f.typing = false
		if f.query == "" {
			m.setNotice("", false)
			return
		}
		m.findStep(-1)
	case key.Matches(msg, m.keys.Picker.Close):
		f.typing, f.query = false, ""
		m.setNotice("", false)
	default:
		if q, ok := filterlist.EditQuery(f.query, msg); ok {
			f.query = q
		}
		m.showFindPrompt()
	}
}

// findStep selects the nearest message holding the text found, earlier (dir -1) or later (1)
// than the one selected, saying when there is none.
func (m *Model) findStep(dir int) {
	q := m.finding.query
	if m.transcript.Find(q, dir) {
		m.setNotice("found “"+sanitize.String(q)+"” · "+m.keys.Transcript.FindNext.Help().Key+" earlier · "+
			m.keys.Transcript.FindPrev.Help().Key+" later", false)
		return
	}
	where := "earlier"
	if dir > 0 {
		where = "later"
	}
	m.setNotice("no "+where+" message holds “"+sanitize.String(q)+"”", true)
}

// revealFound selects the message a session opened from a search is to show, once it is on
// screen, with the search's words kept for n and N.
func (m *Model) revealFound() {
	id := m.finding.reveal
	if id == 0 || !m.transcript.Select(id) {
		return
	}
	m.finding.reveal = 0
	m.focus = focusTranscript
	m.input.Blur()
	m.setNotice("the message that matched “"+sanitize.String(m.finding.query)+"” · "+
		m.keys.Transcript.FindNext.Help().Key+" finds it again earlier", false)
}
