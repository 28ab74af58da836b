package tui

import (
	tea "charm.land/bubbletea/v2"

	"parley/history/stored"
	"parley/internal/sanitize"
)

// This file owns /title, which renames the open session.

// titledMsg carries the session renamed by /title, or why it was not.
type titledMsg struct {
	sessionGen int
	session    stored.Session
	err        error
}

// titleCommand is /title TEXT: the session's title becomes TEXT.
func (m *Model) titleCommand(text string) tea.Cmd {
	if text == "" {
		m.setNotice("/title TEXT renames this session", true)
		return nil
	}
	db, id, sessionGen := m.db, m.session.ID, m.sessionGen
	return func() tea.Msg {
		if err := db.SetTitle(id, text); err != nil {
			return titledMsg{sessionGen: sessionGen, err: err}
		}
		s, err := db.Session(id)
		return titledMsg{sessionGen: sessionGen, session: s, err: err}
	}
}

// handleTitled shows the session's new title.
func (m *Model) handleTitled(msg titledMsg) tea.Cmd {
	if !m.accepts(msg.sessionGen, msg.err, "rename the session") {
		return nil
	}
	m.session.Title = msg.session.Title
	m.setNotice("renamed: "+sanitize.String(msg.session.Title), false)
	return nil
}
