package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
)

// wheelLines is how far one step of the mouse wheel scrolls.
const wheelLines = 3

// Update handles one message. It does no I/O: storage and requests happen in commands.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
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
	case sessionLoadedMsg:
		cmd = tea.Batch(m.handleSessionLoaded(msg), m.readSpent())
	case olderLoadedMsg:
		m.handleOlderLoaded(msg)
	case spentMsg:
		if msg.gen == m.sessionGen && msg.err == nil {
			m.spent = msg.spent
		}
	case postedMsg:
		cmd = m.handlePosted(msg)
	case runStartedMsg:
		cmd = m.handleRunStarted(msg)
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
	case versionsMsg:
		m.handleVersions(msg)
	case sessionsMsg:
		m.handleSessions(msg)
	case noticeMsg:
		m.setNotice(msg.text, msg.err)
	default:
		// Cursor blinks and other internal messages of the textarea.
		if m.focus == focusInput {
			m.input, cmd = m.input.Update(msg)
		}
	}
	m.updateKeys()
	m.layout()
	return m, cmd
}

// handleKey routes a key press by focus. Typed keys go to the input only; the transcript
// interprets its own keys and ignores the rest.
func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch m.focus {
	case focusPicker:
		return m.pickerKey(msg)
	case focusVersions:
		return m.versionsKey(msg)
	}
	switch {
	case key.Matches(msg, k.Interrupt):
		switch {
		case m.tier2.Active():
			return m.cancelRetry()
		case m.run != nil:
			m.cancelRun()
			return nil
		}
		return m.quit()
	case key.Matches(msg, k.Cancel):
		switch {
		case m.tier2.Active():
			return m.cancelRetry()
		case m.run != nil:
			m.cancelRun()
		case m.focus == focusInput:
			m.focusTranscript()
		default:
			m.focusInput()
		}
		return nil
	case key.Matches(msg, k.PageUp):
		m.transcript.ScrollUp(max(1, m.transcript.height-1))
		return nil
	case key.Matches(msg, k.PageDown):
		m.transcript.ScrollDown(max(1, m.transcript.height-1))
		return nil
	}
	if m.focus == focusTranscript {
		return m.transcriptKey(msg)
	}

	empty := m.input.Value() == ""
	switch {
	case empty && m.tier2.Armed() && key.Matches(msg, k.RetryNow):
		return m.retryNow()
	case key.Matches(msg, k.Send):
		text := m.input.Value()
		if strings.TrimSpace(text) == "" {
			return nil
		}
		m.input.Reset()
		m.notice = ""
		if strings.HasPrefix(text, "/") {
			return m.command(text)
		}
		return m.send(text)
	case empty && key.Matches(msg, k.Quit):
		if m.run != nil {
			m.quitAfterRun = true
			m.cancelRun()
			return nil
		}
		return m.quit()
	case empty && key.Matches(msg, k.Help):
		m.help.ShowAll = !m.help.ShowAll
		return nil
	case empty && key.Matches(msg, k.Top):
		m.transcript.GotoTop()
		return nil
	case empty && key.Matches(msg, k.Bottom):
		m.transcript.GotoBottom()
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return cmd
}

// transcriptKey handles a key while the transcript has the focus.
func (m *Model) transcriptKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case m.tier2.Armed() && key.Matches(msg, k.RetryNow):
		return m.retryNow()
	case key.Matches(msg, k.Regenerate):
		return m.regenerateReply(m.transcript.Selected())
	case key.Matches(msg, k.Versions):
		dir := 1
		if msg.String() == "[" {
			dir = -1
		}
		return m.showVersions(m.transcript.Selected(), dir)
	case key.Matches(msg, k.Up):
		m.transcript.SelectPrev()
	case key.Matches(msg, k.Down):
		m.transcript.SelectNext()
	case key.Matches(msg, k.Top):
		m.transcript.GotoTop()
	case key.Matches(msg, k.Bottom):
		m.transcript.GotoBottom()
	case key.Matches(msg, k.Help):
		m.help.ShowAll = !m.help.ShowAll
	case key.Matches(msg, k.Input):
		m.focusInput()
	case key.Matches(msg, k.Copy):
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

// waiting reports whether a run is active and has shown no text yet.
func (m *Model) waiting() bool {
	return m.run != nil && !m.run.gotDelta
}

// updateKeys enables the bindings that apply now and names what esc and ctrl+c do.
func (m *Model) updateKeys() {
	k := &m.keys
	input, trans := m.focus == focusInput, m.focus == focusTranscript
	pick := m.focus == focusPicker || m.focus == focusVersions
	active := m.run != nil
	armed := m.tier2.Armed()
	k.RetryNow.SetEnabled(armed && !pick && (trans || m.input.Value() == ""))
	k.Send.SetEnabled(input && !k.RetryNow.Enabled())
	k.Newline.SetEnabled(input)
	k.Quit.SetEnabled(input && m.input.Value() == "")
	k.Help.SetEnabled(!pick)
	k.Up.SetEnabled(trans)
	k.Down.SetEnabled(trans)
	k.Copy.SetEnabled(trans && m.transcript.Selected() != 0)
	k.Regenerate.SetEnabled(trans && m.transcript.Selected() != 0)
	k.Versions.SetEnabled(trans && m.transcript.Selected() != 0)
	k.Input.SetEnabled(trans)
	k.Choose.SetEnabled(m.focus == focusPicker)
	k.Close.SetEnabled(pick)
	k.Cancel.SetEnabled(!pick)
	k.Interrupt.SetEnabled(!pick)
	k.PageUp.SetEnabled(!pick)
	k.PageDown.SetEnabled(!pick)
	k.Top.SetEnabled(!pick)
	k.Bottom.SetEnabled(!pick)
	switch {
	case m.tier2.Active():
		k.Cancel.SetHelp("esc", "cancel retry")
		k.Interrupt.SetHelp("ctrl+c", "cancel retry")
	case active:
		k.Cancel.SetHelp("esc", "cancel reply")
		k.Interrupt.SetHelp("ctrl+c", "cancel reply")
	case trans:
		k.Cancel.SetHelp("esc", "back to input")
		k.Interrupt.SetHelp("ctrl+c", "quit")
	default:
		k.Cancel.SetHelp("esc", "select replies")
		k.Interrupt.SetHelp("ctrl+c", "quit")
	}
}
