package tui

import (
	tea "charm.land/bubbletea/v2"

	"parley/internal/chat"
)

// signalEnd writes the signal of a long reply's end, ended with status st, when the terminal
// is not looked at (tui/notify decides).
func (m *Model) signalEnd(st chat.Status) tea.Cmd {
	if seq := m.turn.Ended(m.clock.Now(), st == chat.StatusCancelled); seq != "" {
		return tea.Raw(seq)
	}
	return nil
}
