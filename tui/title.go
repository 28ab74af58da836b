package tui

import (
	tea "charm.land/bubbletea/v2"

	"parley/history/stored"
	"parley/internal/sanitize"
)

// This file owns /title, which renames the open session.

// titledMsg carries the session renamed by /title, or why it was not and the line to give
// back to the input.
type titledMsg struct {
	sessionGen int
	session    stored.Session
	err        error
	line       string
}

// titleCommand is /title TEXT: the session's title becomes TEXT. A session not stored yet is
// titled when its first message stores it. It reports whether it did what was asked.
func (m *Model) titleCommand(text string) (tea.Cmd, bool) {
	if text == "" {
		m.setNotice("/title TEXT renames this session", true)
		return nil, false
	}
	if m.session.ID == "" {
		m.next.title = text
		m.setNotice("no session yet: it is titled “"+sanitize.String(text)+"” when your first message makes it", false)
		return nil, true
	}
	db, id, sessionGen, line := m.db, m.session.ID, m.sessionGen, "/title "+text
	return func() tea.Msg {
		if err := db.SetTitle(id, text); err != nil {
			return titledMsg{sessionGen: sessionGen, err: err, line: line}
		}
		s, err := db.Session(id)
		return titledMsg{sessionGen: sessionGen, session: s, err: err, line: line}
	}, true
}

// handleTitled shows the session's new title; a rename that failed gives its line back to an
// empty input.
func (m *Model) handleTitled(msg titledMsg) tea.Cmd {
	if !m.accepts(msg.sessionGen, msg.err, "rename the session") {
		if msg.err != nil && msg.sessionGen == m.sessionGen && m.input.Empty() {
			m.input.SetValue(msg.line)
		}
		return nil
	}
	m.session.Title = msg.session.Title
	m.setNotice("renamed: "+sanitize.String(msg.session.Title), false)
	return nil
}
