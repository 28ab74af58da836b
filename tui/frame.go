package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/internal/markdown"
	"parley/tui/versions"
)

// This file owns frames: a streaming reply is rendered at most once per frame, however fast
// its deltas come, and no message renders more than a frame's quota of markdown, however
// long the reply. What the quota leaves unfinished goes on in the next frame, asked for at
// once, so the event loop takes a key between any two pieces of rendering.

// frameInterval is how often, at most, a streaming reply is rendered again: deltas that
// arrive in between cost no rendering at all.
const frameInterval = time.Second / 30

// frame shows the streaming reply's new text now when a frame interval has passed since it
// was last rendered, and otherwise asks for a frame when it will have: never more than one
// render per interval, and new text never waits longer than one.
func (m *Model) frame() tea.Cmd {
	wait := frameInterval - m.now.Sub(m.lastFrame)
	if wait <= 0 {
		m.refresh(m.now)
		return nil
	}
	return m.askFrame(wait)
}

// askFrame asks for a frame after wait, unless one is on its way. The frame carries the tag
// of the newest run: one asked for before a run started is not shown.
func (m *Model) askFrame(wait time.Duration) tea.Cmd {
	if m.framePending {
		return nil
	}
	m.framePending = true
	tag := m.lastRunTag
	if wait <= 0 {
		return func() tea.Msg { return frameMsg{tag: tag} }
	}
	return tea.Tick(wait, func(time.Time) tea.Msg { return frameMsg{tag: tag} })
}

// handleFrame renders the streaming reply again, and goes on with unfinished renders.
func (m *Model) handleFrame(msg frameMsg) tea.Cmd {
	m.framePending = false
	if msg.tag == m.lastRunTag {
		m.refresh(m.clock.Now())
	}
	return nil
}

// refresh lets the views render again what changed or is unfinished.
func (m *Model) refresh(now time.Time) {
	m.transcript.Refresh()
	if v, ok := m.overlays.Find(versions.ID).(*versions.View); ok {
		v.Refresh()
	}
	m.lastFrame = now
}

// giveQuota gives the views a frame's quota of rendering for the message being handled.
func (m *Model) giveQuota() {
	m.transcript.Quota(markdown.FrameQuota)
	if v, ok := m.overlays.Find(versions.ID).(*versions.View); ok {
		v.Quota(markdown.FrameQuota)
	}
}

// settle renders what is on screen, within the message's quota, and asks for the next frame
// at once if that left a render unfinished. It ends every Update, so View only draws.
func (m *Model) settle() tea.Cmd {
	if v, ok := m.listShown().(*versions.View); ok {
		if v.Prepare() {
			return m.askFrame(0)
		}
		return nil
	}
	if m.listShown() != nil {
		return nil
	}
	m.transcript.Prepare()
	if m.transcript.Unfinished() {
		return m.askFrame(0)
	}
	return nil
}
