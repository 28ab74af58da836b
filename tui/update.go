package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
)

// This file owns Update and the keys of the input and the transcript; the picker, the version
// view and the slash commands handle their own in their files.

// wheelLines is how far one step of the mouse wheel scrolls.
const wheelLines = 3

// Update handles one message. It does no I/O: storage and requests happen in commands.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.giveBudget()
	var cmd tea.Cmd
	switch msg := msg.(type) {
	// The terminal and the operator.
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
	case tea.BackgroundColorMsg:
		m.setDark(msg.IsDark())
	case tea.KeyPressMsg:
		cmd = m.handleKey(msg)
	case tea.PasteMsg:
		cmd = m.handlePaste(msg)
	case tea.MouseWheelMsg:
		m.handleWheel(msg)
	case spinner.TickMsg:
		if m.waiting() {
			m.now = m.clock.Now() // moves the Tier 1 countdown
			m.spinner, cmd = m.spinner.Update(msg)
		}
	case noticeMsg:
		m.setNotice(msg.text, msg.err)

	// The session (session.go, picker.go, versions.go).
	case sessionLoadedMsg:
		cmd = tea.Batch(m.handleSessionLoaded(msg), m.readSpent())
	case olderLoadedMsg:
		m.handleOlderLoaded(msg)
	case spentMsg:
		m.handleSpent(msg)
	case sessionsMsg:
		m.handleSessions(msg)
	case versionsMsg:
		m.handleVersions(msg)

	// Runs (outbox.go, run.go, frame.go, regenerate.go, tier2.go).
	case postedMsg:
		cmd = m.handlePosted(msg)
	case runStartedMsg:
		cmd = readEvents(msg.tag, msg.events)
	case runEventsMsg:
		cmd = m.handleRunEvents(msg)
	case frameMsg:
		m.handleFrame(msg)
	case regeneratedMsg:
		cmd = m.handleRegenerated(msg)
	case storedRunMsg:
		cmd = m.handleStoredRun(msg)
	case tier2TickMsg:
		cmd = m.handleTier2Tick(msg)

	default:
		// The input box's own messages (the clipboard's text for ctrl+v).
		if m.focus == focusInput {
			m.input, cmd = m.input.Update(msg)
		}
	}
	m.updateKeys()
	m.layout()
	return m, tea.Batch(cmd, m.settle())
}

// handleKey routes a key press by focus. Typed keys go to the input only; the transcript
// interprets its own keys and ignores the rest.
func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	switch m.focus {
	case focusPicker:
		return m.pickerKey(msg)
	case focusVersions:
		return m.versionsKey(msg)
	}
	c := m.keys.Chat
	switch {
	case key.Matches(msg, c.Interrupt):
		if cmd, stopped := m.stop(); stopped {
			return cmd
		}
		return m.quit()
	case key.Matches(msg, c.Cancel):
		if cmd, stopped := m.stop(); stopped {
			return cmd
		}
		if m.focus == focusInput {
			m.focusTranscript()
		} else {
			m.focusInput()
		}
		return nil
	case key.Matches(msg, c.PageUp):
		m.transcript.ScrollUp(max(1, m.transcript.height-1))
		return nil
	case key.Matches(msg, c.PageDown):
		m.transcript.ScrollDown(max(1, m.transcript.height-1))
		return nil
	case key.Matches(msg, c.Pastes):
		if m.focus == focusInput && m.input.HoldsPastes() {
			m.input.ExpandPastes()
		} else {
			m.transcript.TogglePastes()
		}
		return nil
	}
	if m.focus == focusTranscript {
		return m.transcriptKey(msg)
	}
	return m.inputKey(msg)
}

// stop is what esc and ctrl+c cancel first: the Tier 2 retry, else the active run. It
// reports whether there was one.
func (m *Model) stop() (tea.Cmd, bool) {
	switch {
	case m.tier2.Active():
		return m.cancelTier2(), true
	case m.active != nil:
		m.cancelRun()
		return nil, true
	}
	return nil, false
}

// inputKey handles a key while the input has the focus. On an empty input a few keys act;
// otherwise keys are text.
func (m *Model) inputKey(msg tea.KeyPressMsg) tea.Cmd {
	c, in := m.keys.Chat, m.keys.Input
	empty := m.input.Empty()
	switch {
	case empty && m.tier2.Armed() && key.Matches(msg, c.RetryNow):
		return m.retryNow()
	case key.Matches(msg, in.Send):
		text := m.input.Value()
		if strings.TrimSpace(text) == "" {
			return nil
		}
		m.transcript.NotePastes(m.input.Pastes())
		m.input.Reset()
		m.notice = ""
		if strings.HasPrefix(text, "/") {
			return m.command(text)
		}
		return m.send(text)
	case empty && key.Matches(msg, in.Quit):
		return m.quitAfterActive()
	case empty && key.Matches(msg, c.Help):
		m.help.ShowAll = !m.help.ShowAll
		return nil
	case empty && key.Matches(msg, c.Top):
		m.transcript.GotoTop()
		return nil
	case empty && key.Matches(msg, c.Bottom):
		m.transcript.GotoBottom()
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return cmd
}

// transcriptKey handles a key while the transcript has the focus.
func (m *Model) transcriptKey(msg tea.KeyPressMsg) tea.Cmd {
	c, t := m.keys.Chat, m.keys.Transcript
	switch {
	case m.tier2.Armed() && key.Matches(msg, c.RetryNow):
		return m.retryNow()
	case key.Matches(msg, t.Regenerate):
		return m.regenerateReply(m.transcript.Selected())
	case key.Matches(msg, t.Older):
		return m.showVersions(m.transcript.Selected(), -1)
	case key.Matches(msg, t.Newer):
		return m.showVersions(m.transcript.Selected(), 1)
	case key.Matches(msg, t.Up):
		m.transcript.SelectPrev()
	case key.Matches(msg, t.Down):
		m.transcript.SelectNext()
	case key.Matches(msg, c.Top):
		m.transcript.GotoTop()
	case key.Matches(msg, c.Bottom):
		m.transcript.GotoBottom()
	case key.Matches(msg, c.Help):
		m.help.ShowAll = !m.help.ShowAll
	case key.Matches(msg, t.FocusInput):
		m.focusInput()
	case key.Matches(msg, t.Copy):
		id := m.transcript.Selected()
		if id == 0 {
			return nil
		}
		text := m.transcript.Text(id)
		m.setNotice("copied the reply to the clipboard", false)
		return tea.SetClipboard(text)
	}
	return nil
}

// handlePaste puts pasted text into the input, whatever has the focus.
func (m *Model) handlePaste(msg tea.PasteMsg) tea.Cmd {
	if m.focus == focusPicker || m.focus == focusVersions {
		return nil
	}
	m.focusInput()
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return cmd
}

// handleWheel scrolls the transcript, or the version shown.
func (m *Model) handleWheel(msg tea.MouseWheelMsg) {
	t := m.transcript
	if m.focus == focusVersions {
		t = m.versions.view
	}
	switch msg.Button {
	case tea.MouseWheelUp:
		t.ScrollUp(wheelLines)
	case tea.MouseWheelDown:
		t.ScrollDown(wheelLines)
	}
}

// focusTranscript moves the focus to the transcript, selecting the newest reply.
func (m *Model) focusTranscript() {
	m.focus = focusTranscript
	m.input.Blur()
	m.transcript.SelectLast()
}

// focusInput gives the focus back to the input.
func (m *Model) focusInput() {
	m.focus = focusInput
	m.transcript.ClearSelection()
	m.input.Focus()
}

// setDark switches every style to the terminal's background.
func (m *Model) setDark(dark bool) {
	if dark == m.dark {
		return
	}
	m.dark = dark
	s := newTheme(dark)
	*m.styles = s
	m.applyStyles()
	m.transcript.SetDark(dark)
}

// setNotice shows one line in the status line until the next message is sent.
func (m *Model) setNotice(text string, isErr bool) {
	m.notice, m.noticeErr = text, isErr
}
