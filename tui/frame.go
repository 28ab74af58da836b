package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// This file owns the frame throttle: a streaming reply is rendered at most once per frame,
// however fast its deltas come.

// frameInterval is how often, at most, a streaming reply is rendered again: deltas that
// arrive in between cost no rendering at all.
const frameInterval = time.Second / 30

// frame shows the streaming reply's new text now when a frame interval has passed since it
// was last rendered, and otherwise asks for a frame when it will have: never more than one
// render per interval, and new text never waits longer than one.
func (m *Model) frame() tea.Cmd {
	wait := frameInterval - m.now.Sub(m.lastFrame)
	if wait <= 0 {
		m.transcript.Refresh()
		m.lastFrame = m.now
		return nil
	}
	if m.framePending {
		return nil
	}
	m.framePending = true
	tag := m.active.tag
	return tea.Tick(wait, func(time.Time) tea.Msg { return frameMsg{tag: tag} })
}

// handleFrame renders the streaming reply again, if its run is still the active one.
func (m *Model) handleFrame(msg frameMsg) {
	m.framePending = false
	if m.active != nil && m.active.tag == msg.tag {
		m.transcript.Refresh()
		m.lastFrame = m.clock.Now()
	}
}
