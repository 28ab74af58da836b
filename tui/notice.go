package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// This file owns how long a notice stays besides until the next one: a notice of something
// done (a copy) is news for noticeLife, and one of a tool call running ends with its result.

// noticeLife is how long a notice of something done stays on the status line.
const noticeLife = 4 * time.Second

// noticeEnd is what ends the notice shown, besides the next one. gen counts notices: the end
// of one shown before ends nothing. call is the tool call a notice says is running.
type noticeEnd struct {
	gen  int
	call string
}

// noticeExpiredMsg ends notice gen, when it is still the one shown.
type noticeExpiredMsg struct{ gen int }

// flash shows a notice for noticeLife, by the clock.
func (m *Model) flash(text string, isErr bool) tea.Cmd {
	m.setNotice(text, isErr)
	clock, gen := m.clock, m.noticeEnd.gen
	return func() tea.Msg {
		<-clock.After(noticeLife)
		return noticeExpiredMsg{gen: gen}
	}
}

// noticeWhileRunning shows a notice of tool call id running, which its result ends.
func (m *Model) noticeWhileRunning(text, id string) {
	m.setNotice(text, false)
	m.noticeEnd.call = id
}

// toolEnded takes away the notice of tool call id running: it has run ("" ends any call's).
func (m *Model) toolEnded(id string) {
	if c := m.noticeEnd.call; c != "" && (id == "" || c == id) {
		m.setNotice("", false)
	}
}

// handleNoticeExpired takes away a flashed notice that is still shown.
func (m *Model) handleNoticeExpired(msg noticeExpiredMsg) {
	if msg.gen == m.noticeEnd.gen {
		m.setNotice("", false)
	}
}
