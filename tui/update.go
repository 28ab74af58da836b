package tui

import (
	"strings"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"parley/internal/sanitize"
	"parley/tui/inputbox"
	"parley/tui/picker"
	"parley/tui/transcript"
)

// This file owns Update: one type switch that hands each message to its handler, in the file
// of its concern; keys go on to chatkeys.go.

// wheelLines is how far one step of the mouse wheel scrolls.
const wheelLines = 3

// Update handles one message. It does no I/O: storage and requests happen in commands.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	giveQuota(m.transcript, &m.overlays)
	var cmd tea.Cmd
	switch msg := msg.(type) {
	// The terminal and the operator.
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
	case tea.BackgroundColorMsg:
		if m.followBg {
			m.setDark(msg.IsDark())
		}
	case tea.FocusMsg:
		m.turn.SetFocus(true)
	case tea.BlurMsg:
		m.turn.SetFocus(false)
	case tea.KeyPressMsg:
		cmd = tea.Batch(m.handleKey(msg), m.drafts.storeLater(&m.sessionState, &m.input))
	case tea.PasteMsg:
		cmd = tea.Batch(m.handlePaste(msg), m.drafts.storeLater(&m.sessionState, &m.input))
	case tea.MouseWheelMsg:
		m.overlays.wheel(msg, m.transcript)
	case spinner.TickMsg:
		if m.active != nil {
			m.now = m.clock.Now() // moves the Tier 1 countdown and the count of a silence
			m.spinner, cmd = m.spinner.Update(msg)
		}
	case draftStoredMsg:
		m.clearIfPrefixed(draftNotStored) // the draft is stored now
	case stopMsg:
		cmd = m.quitAfterActive()
	case noticeMsg:
		m.noticeLine.show(msg, &m.input)
	case noticeExpiredMsg:
		m.handleNoticeExpired(msg)
	case marksMsg:
		m.handleMarks(m.transcript, msg)
	case copiedMsg:
		cmd = handleCopied(&m.noticeLine, m.clock, msg)
	case inputbox.ClipboardErrMsg:
		m.setNotice("could not read the clipboard: "+msg.Err.Error(), true)
	case draftTickMsg:
		cmd = m.handleDraftTick(msg)
	case pasteTickMsg:
		end, next := m.keyPaste.tickDue(msg, m.clock.Now())
		cmd = tea.Batch(next, m.pasteEnded(end), m.drafts.storeLater(&m.sessionState, &m.input))

	// The session (session.go, overlays.go, versions.go).
	case sessionLoadedMsg:
		cmd = m.handleSessionLoaded(msg)
	case olderLoadedMsg:
		cmd = m.handleOlderLoaded(msg)
	case rereadMsg:
		cmd = m.handleReread(msg)
	case spentMsg:
		if msg.sessionGen == m.sessionGen {
			m.handleSpent(msg)
		}
	case sessionsMsg:
		cmd = m.handleSessions(msg)
	case picker.Searched:
		if p := m.overlays.Find(picker.ID); p != nil {
			cmd = m.overlayAction(p.Update(msg), confirm{})
		}
	case picker.Edited:
		cmd = m.handleSessionEdited(msg)
	case versionsMsg:
		cmd = m.handleVersions(msg)
	case restoredMsg:
		cmd = m.handleRestored(msg)
	case titledMsg:
		m.sessionState.titled(msg, &m.noticeLine, &m.input)

	// The context budget (budget.go).
	case budgetMsg:
		cmd = m.handleBudget(msg)
	case pinnedMsg:
		cmd = m.handlePinned(msg)
	case compactedMsg:
		cmd = m.budget.compacted(msg, &m.sessionState, &m.endpoints, &m.noticeLine)

	// Runs (outbox.go, run.go, regenerate.go, waits.go).
	case postedMsg:
		cmd = m.handlePosted(msg)
	case runStartedMsg:
		if len(msg.toolErrs) > 0 {
			m.setNotice(sanitize.String(strings.Join(msg.toolErrs, "; "))+"; its tools are not offered", true)
		}
		cmd = readEvents(msg.tag, msg.events)
	case toolsListMsg:
		cmd = m.handleToolsList(msg)
	case runEventsMsg:
		cmd = m.handleRunEvents(msg)
	case frameMsg:
		m.runs.handleFrame(msg, m.clock.Now(), m.transcript, &m.overlays)
	case regeneratedMsg:
		cmd = m.handleRegenerated(msg)
	case forkedMsg:
		cmd = m.handleForked(msg)
	case storedRunMsg:
		// The newest message is the run's reply, or (for a retry that produced nothing) the
		// reply that retry left in place.
		free := !m.busy() && len(m.outbox) == 0 && !m.posting
		if msg.sessionGen == m.sessionGen &&
			m.armFrom(msg, free, m.transcript.Anchor(m.transcript.Last()), m.clock.Now(), &m.keys, &m.noticeLine) {
			cmd = m.tier2Tick(m.tier2.Token())
		}
	case tier2TickMsg:
		cmd = m.tier2Tick(msg.token)

	// What goes with the next message (attach.go, edit.go, overlays.go).
	case attachedMsg:
		cmd = m.handleAttached(msg)
	case editedMsg:
		cmd = m.handleEdited(msg)
	case editorDoneMsg:
		cmd = m.handleEditorDone(msg)
	case modelsMsg:
		cmd = m.handleModels(msg)

	default:
		// The input box's own messages (the clipboard's text for ctrl+v).
		if m.focus == focusInput && m.overlays.blocking() == nil {
			m.input, cmd = m.input.Update(msg)
		}
	}
	cmd = tea.Batch(cmd, m.budget.changed(&m.sessionState, &m.endpoints))
	m.updateKeys()
	m.transcript.SetOptions(m.transcriptOptions())
	m.layout()
	return m, tea.Batch(cmd, m.runs.settle(m.transcript, &m.overlays))
}

// handlePaste puts pasted text into the input, whatever has the focus, unless an overlay or
// a list is in front.
func (m *Model) handlePaste(msg tea.PasteMsg) tea.Cmd {
	if m.overlays.blocking() != nil {
		return nil
	}
	m.focus.toInput(&m.input, m.transcript)
	if path, ok := droppedImage(msg.Content); ok {
		// A file dropped on the terminal: the image is attached, not its path typed.
		return m.fileCommand(path, msg.Content)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return cmd
}

// wheel scrolls t, or the list the stack draws in its place.
func (s *stack) wheel(msg tea.MouseWheelMsg, t *transcript.List) {
	if o := s.listShown(); o != nil {
		o.Update(msg)
		return
	}
	switch msg.Button {
	case tea.MouseWheelUp:
		t.ScrollUp(wheelLines)
	case tea.MouseWheelDown:
		t.ScrollDown(wheelLines)
	}
}

// toTranscript moves the focus from the input (in) to the transcript (t), selecting the
// newest reply.
func (f *focus) toTranscript(in *inputbox.Box, t *transcript.List) {
	*f = focusTranscript
	in.Blur()
	t.SelectLast()
}

// toInput gives the focus back to the input (in), clearing t's selection.
func (f *focus) toInput(in *inputbox.Box, t *transcript.List) {
	*f = focusInput
	t.ClearSelection()
	in.Focus()
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

// show shows msg's notice, and gives a failed command's line back to the input (in) when it is
// empty.
func (n *noticeLine) show(msg noticeMsg, in *inputbox.Box) {
	n.setNotice(msg.text, msg.err)
	if msg.giveBack != "" && in.Empty() {
		in.SetValue(msg.giveBack)
	}
}
