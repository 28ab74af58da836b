package tui

import (
	tea "charm.land/bubbletea/v2"

	"parley/history/stored"
)

// This file reads which replies have other versions, for their ‹ 2/3 › mark: when a session
// opens and whenever a run ends, a regeneration is stored or a version restored.

// marksMsg carries the version marks of the session's replies.
type marksMsg struct {
	sessionGen int
	marks      map[int64]stored.Mark
	err        error
}

// readMarks reads the version marks of the session's replies.
func (m *Model) readMarks() tea.Cmd {
	if m.db == nil || m.session.ID == "" {
		return nil
	}
	db, id, gen := m.db, m.session.ID, m.sessionGen
	return func() tea.Msg {
		marks, err := db.VersionMarks(id)
		return marksMsg{sessionGen: gen, marks: marks, err: err}
	}
}

// handleMarks puts the marks on the replies; marks that cannot be read are left as they were:
// a missing mark hides nothing, [ and ] still find the versions.
func (m *Model) handleMarks(msg marksMsg) tea.Cmd {
	if msg.sessionGen == m.sessionGen && msg.err == nil {
		m.transcript.SetMarks(msg.marks)
	}
	return nil
}
