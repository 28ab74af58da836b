package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"parley/internal/attach"
	"parley/internal/chat"
	"parley/internal/sanitize"
	"parley/tui/filterlist"
	"parley/tui/helpview"
	"parley/tui/overlay"
	"parley/tui/question"
	"parley/tui/slashmenu"
	"parley/tui/transcript"
)

// This file owns the keys of the input and the transcript: what each does in which state, and
// the confirmation some ask for. The picker, the version view and the model list handle their
// own keys in their files.

// selectGuard is how long after a run ends, or is stopped, esc does not select replies: an esc
// that arrives that soon was meant to stop the reply, and the letters typed after it are text.
const selectGuard = 600 * time.Millisecond

// handleKey handles a key press: the overlay in front takes it first, and may pass it on. A question (confirm.go)
// answers every key: its own confirms the action it asked about, which is pending for this key
// only; any other key forgets it and acts as it would. A question asked while handling the key
// is answered by that key again.
func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	var pending confirm
	if q, ok := m.overlays.Front().(*question.Question); ok {
		if a, ok := q.Update(msg).(question.Confirmed); ok {
			pending = a.Action.(confirm)
		}
		m.dropOverlay(question.ID)
	}
	var cmd tea.Cmd
	o := m.overlays.blocking()
	if o != nil {
		a := o.Update(msg)
		if _, pass := a.(overlay.Pass); pass {
			m.dropOverlay(o.ID())
			o = nil
		} else {
			cmd = m.overlayAction(a, pending)
		}
	}
	if o == nil {
		before, took := m.pasteKey(msg, pending != confirm{})
		if took {
			return before
		}
		cmd = tea.Batch(before, m.routeKey(msg, pending))
	}
	if q, ok := m.overlays.Front().(*question.Question); ok && q.Key == "" {
		q.Key = msg.String()
	}
	return cmd
}

// routeKey routes a key press by focus. Typed keys go to the input only; the transcript
// interprets its own keys and hands the rest to the input.
func (m *Model) routeKey(msg tea.KeyPressMsg, pending confirm) tea.Cmd {
	m.updateKeys() // a key handled just before this one may have changed what acts
	if next, ok := escThen(msg); ok {
		// Terminals send esc and a key typed right after it as one alt+key (tmux does within
		// its escape-time): it is read as the two keys the operator pressed.
		return tea.Batch(m.handleKey(tea.KeyPressMsg{Code: tea.KeyEscape}), m.handleKey(next))
	}
	if m.focus == focusTranscript && m.finding.typing {
		m.finding.key(msg, m.keys, m.transcript, &m.noticeLine) // the text to find takes every key, esc and enter too
		return nil
	}
	c := m.keys.Chat
	switch {
	case m.next.edit != 0 && m.focus == focusInput && key.Matches(msg, c.Cancel):
		m.abandonEdit()
		return nil
	case key.Matches(msg, c.Interrupt):
		if cmd, stopped := m.stop(); stopped {
			return cmd
		}
		k, send := c.Interrupt.Help().Key, m.keys.Input.Send.Help().Key
		if !m.input.Empty() {
			quits := m.quitQuestion(confirm{}, m.offered(), m.clock.Now(), k, send) == ""
			m.drafts.clear(&m.input, &m.keys, &m.noticeLine, quits)
			return nil
		}
		if q := m.quitQuestion(pending, m.offered(), m.clock.Now(), k, send); q != "" {
			m.overlays.ask(quitting, q, m.styles, &m.noticeLine)
			return nil
		}
		return m.quit()
	case key.Matches(msg, c.Cancel):
		if cmd, stopped := m.stop(); stopped {
			return cmd
		}
		if menu, ok := m.overlays.Find(slashmenu.ID).(*slashmenu.Menu); ok && m.focus == focusInput && menu.Close() {
			return nil
		}
		if m.offered() {
			m.dismissOffer(&m.noticeLine)
			return nil
		}
		selecting := confirm{action: "select"}
		switch {
		case m.focus == focusTranscript:
			m.focus.toInput(&m.input, m.transcript)
		case m.selectable(m.clock.Now(), m.tier2.Active()), pending == selecting && m.idle(m.tier2.Active()):
			m.focus.toTranscript(&m.input, m.transcript)
		case m.idle(m.tier2.Active()):
			// Soon after a reply ended an esc was meant to stop it: it selects nothing, and
			// says so, so that the keys after it are not taken for the transcript's unawares.
			k := m.keys.Chat.Cancel.Help().Key
			m.overlays.ask(selecting, "nothing to stop: the reply has ended · "+k+" again selects replies", m.styles, &m.noticeLine)
		}
		return nil
	case key.Matches(msg, c.Fallback):
		if anchor := m.waits.fallbackNow(&m.endpoints, &m.noticeLine); anchor != 0 {
			return m.regenerate(anchor, false, m.fallback)
		}
		return nil
	case m.input.Empty() && pressed(msg, c.Fallback), m.focus == focusTranscript && pressed(msg, m.keys.Transcript.Fallback):
		m.noFallback(&m.noticeLine, msg.String())
		return nil
	case key.Matches(msg, c.PageUp):
		m.transcript.ScrollUp(max(1, m.transcript.Height()-1))
		return nil
	case key.Matches(msg, c.PageDown):
		m.transcript.ScrollDown(max(1, m.transcript.Height()-1))
		return nil
	case key.Matches(msg, c.Mouse):
		m.toggleMouse(&m.noticeLine, m.keys.Chat.Mouse.Help().Key)
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
		return m.transcriptKey(msg, pending)
	}
	return m.inputKey(msg, pending)
}

// escThen reads an alt+key whose key is printable as esc followed by that key, and returns the
// key; ok is false for any other key.
func escThen(msg tea.KeyPressMsg) (tea.KeyPressMsg, bool) {
	if msg.Mod&^tea.ModShift != tea.ModAlt {
		return msg, false
	}
	r := msg.Code
	if msg.Mod&tea.ModShift != 0 && msg.ShiftedCode != 0 {
		r = msg.ShiftedCode
	}
	if !unicode.IsPrint(r) {
		return msg, false
	}
	return tea.KeyPressMsg{Code: r, Text: string(r)}, true
}

// stop is what esc and ctrl+c cancel first: the Tier 2 retry, else the active run. It
// reports whether there was one. Messages queued behind a stopped reply are kept, not sent:
// the operator stopped, and says when to go on.
func (m *Model) stop() (tea.Cmd, bool) {
	switch {
	case m.tier2.Active():
		m.runEnded = m.clock.Now()
		return m.cancelRetry(m.waits.cancel(&m.keys, &m.noticeLine), m.transcript, m.db), true
	case m.active != nil:
		m.runEnded = m.clock.Now()
		m.cancelRun()
		if n := m.waitingToSend(); n > 0 && !m.quitAfterRun {
			m.runs.setHeld(true, m.transcript, m.keys.Chat.SendQueued.Help().Key)
			m.setNotice(fmt.Sprintf("stopped · %s kept, %s sends the next", chat.Plural(n, "queued message"),
				m.keys.Chat.SendQueued.Help().Key), false)
		}
		return nil, true
	}
	return nil, false
}

// selectable reports whether esc may select replies now: nothing runs or is being stored,
// and the last run ended (or was stopped) long enough ago for esc not to be a late stop.
func (r *runs) selectable(now time.Time, tier2Active bool) bool {
	return r.idle(tier2Active) && now.Sub(r.runEnded) >= selectGuard
}

// idle reports whether nothing runs, waits to be retried (tier2Active) or is being stored.
func (r *runs) idle(tier2Active bool) bool {
	return r.active == nil && !tier2Active && !r.posting
}

// inputKey handles a key while the input has the focus. On an empty input a few keys act;
// otherwise keys are text.
func (m *Model) inputKey(msg tea.KeyPressMsg, pending confirm) tea.Cmd {
	c, in := m.keys.Chat, m.keys.Input
	empty := m.input.Empty()
	// The menu's keys come here, after the screen's own (esc, ctrl+c) have had theirs.
	if menu, ok := m.overlays.Find(slashmenu.ID).(*slashmenu.Menu); ok {
		switch a := menu.Update(msg).(type) {
		case slashmenu.Complete:
			m.input.SetValue(a.Text)
			return nil
		case nil:
			return nil
		}
	}
	switch {
	case key.Matches(msg, c.RetryNow):
		if anchor := m.waits.retryNow(); anchor != 0 {
			return m.regenerate(anchor, true, m.client.WithForce().SingleRequest())
		}
		return nil
	case key.Matches(msg, c.Continue):
		return m.continueReply(cutReply(m.transcript, &m.tier2))
	case empty && m.offered() && key.Matches(msg, in.Send):
		o := m.takeOffer(&m.noticeLine)
		if o.anchor != 0 {
			return m.regenerate(o.anchor, false, nil)
		}
		return m.readFailedRun(o.run, m.tier2.Token())
	case key.Matches(msg, c.SendQueued):
		m.runs.setHeld(false, m.transcript, m.keys.Chat.SendQueued.Help().Key)
		m.notice = ""
		return m.dispatchNext()
	case key.Matches(msg, in.Send):
		return m.submit(pending)
	case key.Matches(msg, in.Editor):
		return m.openEditor()
	case key.Matches(msg, in.Image):
		return pasteImage(m.start.attachLimits.Image)
	case key.Matches(msg, in.Older):
		m.recallStep(&m.input, m.transcript.OperatorTexts(), 1)
		return nil
	case key.Matches(msg, in.Newer):
		m.recallStep(&m.input, m.transcript.OperatorTexts(), -1)
		return nil
	case key.Matches(msg, in.ScrollUp):
		m.transcript.ScrollUp(wheelLines)
		return nil
	case key.Matches(msg, in.ScrollDown):
		m.transcript.ScrollDown(wheelLines)
		return nil
	case empty && key.Matches(msg, in.Quit):
		// It quits once the reply being written is stopped and stored, asking first.
		if q := m.leaveQuestion(quitting, pending, in.Quit.Help().Key, "quits"); q != "" {
			m.overlays.ask(quitting, q, m.styles, &m.noticeLine)
			return nil
		}
		return m.quitAfterActive()
	case empty && key.Matches(msg, c.Help):
		m.overlays.openHelp(m.keys, m.styles, m.help.Styles)
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

// submit is enter on the input: a known slash command runs, anything else is sent. What was
// typed stays in the input when a command fails or asks to be confirmed.
func (m *Model) submit(pending confirm) tea.Cmd {
	text := m.input.Value()
	if strings.TrimSpace(text) == "" && len(attach.Images(m.next.files)) == 0 {
		return nil // an image alone is a message; nothing at all is none
	}
	m.notice = ""
	if c, args, ok := findSlash(text); ok {
		// The line leaves the input before the command runs: a command that leaves the
		// session or quits stores the input as the draft.
		m.input.Reset()
		cmd, done := m.runSlash(c, args, pending)
		if !done {
			m.input.SetValue(text)
		}
		return cmd
	}
	if notice, unknown := unknownSlash(text); unknown {
		m.setNotice(notice, true)
		return nil
	}
	if m.modelName() == "" {
		// Nothing may be sent without a model; the text stays where it is.
		m.setNotice("choose a model first: /model lists the endpoint's, /model NAME sets one", true)
		return nil
	}
	for _, p := range m.input.Pastes() {
		m.transcript.NotePaste(p.Text, p.Label)
	}
	m.input.Reset()
	m.recall = recall{at: -1}
	m.cleared = ""
	return m.sendInput(unescapeSlash(text))
}

// transcriptKey handles a key while the transcript has the focus. A printable key that is no
// binding here goes back to the input, with the key: it was meant as text.
func (m *Model) transcriptKey(msg tea.KeyPressMsg, pending confirm) tea.Cmd {
	c, t := m.keys.Chat, m.keys.Transcript
	switch {
	case key.Matches(msg, c.RetryNow):
		if anchor := m.waits.retryNow(); anchor != 0 {
			return m.regenerate(anchor, true, m.client.WithForce().SingleRequest())
		}
		return nil
	case key.Matches(msg, t.Find):
		m.finding.start(&m.noticeLine)
	case key.Matches(msg, t.FindNext):
		m.finding.step(-1, m.keys.Transcript, m.transcript, &m.noticeLine)
	case key.Matches(msg, t.FindPrev):
		m.finding.step(1, m.keys.Transcript, m.transcript, &m.noticeLine)
	case key.Matches(msg, t.Regenerate):
		return m.regenerateSelected(pending)
	case key.Matches(msg, t.Continue):
		return m.continueReply(m.transcript.Selected())
	case key.Matches(msg, c.Continue):
		return m.continueReply(cutReply(m.transcript, &m.tier2))
	case key.Matches(msg, t.Seams):
		m.transcript.ToggleSeams()
	case key.Matches(msg, t.Fork):
		return m.forkAt(m.transcript.Selected())
	case key.Matches(msg, t.Compare):
		return m.compareSelected(pending)
	case key.Matches(msg, t.Fallback):
		if anchor := m.waits.fallbackNow(&m.endpoints, &m.noticeLine); anchor != 0 {
			return m.regenerate(anchor, false, m.fallback)
		}
		return nil
	case key.Matches(msg, t.Thinking):
		id := m.transcript.Selected()
		thought, called := m.transcript.ToggleThinking(id), m.transcript.ToggleTools(id)
		if !thought && !called {
			m.setNotice("this reply has no thinking or tool calls to show", false)
		}
	case key.Matches(msg, t.Older):
		return m.showVersions(m.transcript.Selected(), -1)
	case key.Matches(msg, t.Newer):
		return m.showVersions(m.transcript.Selected(), 1)
	case key.Matches(msg, t.Edit):
		m.editSelected(pending)
	case key.Matches(msg, t.Pin):
		return m.sessionState.pinSelected(m.transcript)
	case key.Matches(msg, t.Up):
		m.transcript.SelectPrev()
	case key.Matches(msg, t.Down):
		m.transcript.SelectNext()
	case key.Matches(msg, c.Top):
		m.transcript.GotoTop()
	case key.Matches(msg, c.Bottom):
		m.transcript.GotoBottom()
	case key.Matches(msg, c.Help):
		m.overlays.openHelp(m.keys, m.styles, m.help.Styles)
	case key.Matches(msg, t.FocusInput):
		m.focus.toInput(&m.input, m.transcript)
	case key.Matches(msg, t.Copy):
		what := "the reply"
		if m.transcript.IsOperator(m.transcript.Selected()) {
			what = "your message"
		}
		return m.copyText(&m.noticeLine, m.clock, m.transcript.Text(m.transcript.Selected()), what)
	case key.Matches(msg, t.CopyCode):
		return m.copyCode(&m.noticeLine, m.clock, m.transcript, m.keys.Transcript.CopyCode.Help().Key)
	case slices.Contains(t.Continue.Keys(), msg.String()):
		return m.continueReply(m.transcript.Selected()) // not cut: it says so
	case msg.Text != "" && msg.Mod&^tea.ModShift == 0:
		m.focus.toInput(&m.input, m.transcript)
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return cmd
	}
	return nil
}

// openHelp shows the list of every key and command (tui/helpview: k's keys, in st's and h's
// styles) from its top. The input keeps the focus: typing goes on past the list.
func (s *stack) openHelp(k KeyMap, st *theme, h help.Styles) {
	s.Push(helpview.New(fullKeys(k).sections(), slashHelp(), k.HelpList,
		helpview.Styles{Title: st.ReplyLabel, Key: h.FullKey, Desc: h.FullDesc, Muted: st.Muted}))
}

// This part owns / while replies are selected: a text found in the session's messages, the
// nearest earlier one first, and found again with n (earlier) and N (later). Opening a
// session from a search in /sessions finds its matching message the same way.

// finding is the text looked for in the transcript.
type finding struct {
	// typing is set while the text is being typed; query is the text, kept for n and N once
	// it was looked for.
	typing bool
	query  string
	// reveal is the message a session opened from a search is to show, once it is read; 0
	// when none waits.
	reveal int64
}

// start is /: the text to find is typed on the status line, n.
func (f *finding) start(n *noticeLine) {
	f.typing, f.query = true, ""
	f.prompt(n)
}

// prompt shows on n the text being typed and what ends it.
func (f *finding) prompt(n *noticeLine) {
	n.setNotice("find: "+sanitize.String(f.query)+"▏ · enter finds · esc cancels", false)
}

// key handles a key of k while the text to find is typed: enter finds it in t, esc gives up,
// other keys edit it; n says how it went.
func (f *finding) key(msg tea.KeyPressMsg, k KeyMap, t *transcript.List, n *noticeLine) {
	switch {
	case key.Matches(msg, k.Picker.Choose):
		f.typing = false
		if f.query == "" {
			n.setNotice("", false)
			return
		}
		f.step(-1, k.Transcript, t, n)
	case key.Matches(msg, k.Picker.Close):
		f.typing, f.query = false, ""
		n.setNotice("", false)
	default:
		if q, ok := filterlist.EditQuery(f.query, msg); ok {
			f.query = q
		}
		f.prompt(n)
	}
}

// step selects in t the nearest message holding the text found, earlier (dir -1) or later (1)
// than the one selected, saying on n when there is none; k names the keys that go on.
func (f *finding) step(dir int, k TranscriptKeys, t *transcript.List, n *noticeLine) {
	q := f.query
	if t.Find(q, dir) {
		n.setNotice("found “"+sanitize.String(q)+"” · "+k.FindNext.Help().Key+" earlier · "+
			k.FindPrev.Help().Key+" later", false)
		return
	}
	where := "earlier"
	if dir > 0 {
		where = "later"
	}
	n.setNotice("no "+where+" message holds “"+sanitize.String(q)+"”", true)
}

// revealFound selects the message a session opened from a search is to show, once it is on
// screen, with the search's words kept for n and N.
func (m *Model) revealFound() {
	id := m.finding.reveal
	if id == 0 || !m.transcript.Select(id) {
		return
	}
	m.finding.reveal = 0
	m.focus = focusTranscript
	m.input.Blur()
	m.setNotice("the message that matched “"+sanitize.String(m.finding.query)+"” · "+
		m.keys.Transcript.FindNext.Help().Key+" finds it again earlier", false)
}
