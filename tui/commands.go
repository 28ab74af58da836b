package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"parley/agent/chat"
	"parley/history"
	"parley/tui/sanitize"
)

// slashHelp lists the slash commands for /help and the full key list.
const slashHelp = "/new  /sessions  /regen  /model NAME  /demo …  /help  /quit"

// command runs a slash command typed in the input.
func (m *Model) command(line string) tea.Cmd {
	name, args, _ := strings.Cut(strings.TrimSpace(line), " ")
	args = strings.TrimSpace(args)
	switch name {
	case "/quit", "/exit":
		if m.run != nil {
			m.quitAfterRun = true
			m.cancelRun()
			return nil
		}
		return m.quit()
	case "/help":
		m.help.ShowAll = true
		m.setNotice("commands: "+slashHelp, false)
	case "/model":
		if args == "" {
			m.setNotice("model: "+m.model()+" (/model NAME changes it)", false)
			return nil
		}
		if m.client == nil {
			m.setNotice("no endpoint to change the model of", true)
			return nil
		}
		m.client = m.client.WithModel(args)
		m.setNotice("model: "+args+" for the next messages", false)
	case "/regen":
		return m.regenerateReply(m.transcript.LastReply())
	case "/new":
		return m.switchTo(func(db *history.DB) (history.Session, error) { return db.CreateSession() })
	case "/sessions":
		db := m.db
		return func() tea.Msg {
			s, err := db.Sessions()
			return sessionsMsg{sessions: s, err: err}
		}
	case "/demo":
		if m.demo == nil {
			m.setNotice("/demo works only with the demo endpoint (parley --demo)", true)
			return nil
		}
		d := m.demo
		return func() tea.Msg {
			out, err := d.Command(args)
			if err != nil {
				return noticeMsg{text: err.Error(), err: true}
			}
			return noticeMsg{text: out}
		}
	default:
		m.setNotice(fmt.Sprintf("unknown command %s; %s", sanitize.String(name), slashHelp), true)
	}
	return nil
}

// switchTo leaves the current session, cancelling its active and queued runs, and opens the
// session that open returns.
func (m *Model) switchTo(open func(*history.DB) (history.Session, error)) tea.Cmd {
	if m.run != nil {
		m.run.cancel() // stored as cancelled by its recorder; its events are drained unseen
		m.run = nil
	}
	queue := m.queue
	m.queue = nil
	m.sessionGen++
	m.tier2.Disarm()
	if len(m.outbox) > 0 && m.input.Value() == "" {
		// Typed for the session being left and not stored yet: give it back, unsent.
		m.input.SetValue(strings.Join(m.outbox, "\n\n"))
	}
	m.outbox = nil
	gen, db := m.sessionGen, m.db
	return func() tea.Msg {
		if err := cancelQueued(db, queue); err != nil {
			return sessionLoadedMsg{gen: gen, err: err}
		}
		s, err := open(db)
		if err != nil {
			return sessionLoadedMsg{gen: gen, err: err}
		}
		msgs, err := db.TranscriptBefore(s.ID, 0, firstScreen)
		return sessionLoadedMsg{gen: gen, session: s, msgs: msgs, err: err}
	}
}

// loadSession reads session id and its transcript.
func (m *Model) loadSession(id string) tea.Cmd {
	gen, db := m.sessionGen, m.db
	return func() tea.Msg {
		s, err := db.Session(id)
		if err != nil {
			return sessionLoadedMsg{gen: gen, err: err}
		}
		msgs, err := db.TranscriptBefore(id, 0, firstScreen)
		return sessionLoadedMsg{gen: gen, session: s, msgs: msgs, err: err}
	}
}

// firstScreen is how many of a session's newest messages are read before its first frame; the
// older ones follow in a second read, so a long session opens as fast as a short one.
const firstScreen = 200

// loadOlder reads the messages of the current session older than the first one shown.
func (m *Model) loadOlder(before int64) tea.Cmd {
	gen, db, id := m.sessionGen, m.db, m.session.ID
	return func() tea.Msg {
		msgs, err := db.TranscriptBefore(id, before, 0)
		return olderLoadedMsg{gen: gen, msgs: msgs, err: err}
	}
}

// handleOlderLoaded puts the rest of a long session before what is shown.
func (m *Model) handleOlderLoaded(msg olderLoadedMsg) {
	if msg.gen != m.sessionGen {
		return
	}
	if msg.err != nil {
		m.setNotice("could not read the older messages: "+msg.err.Error(), true)
		return
	}
	m.transcript.Prepend(msg.msgs)
}

// handleSessionLoaded shows a session's transcript, and reads the older messages when only the
// newest were read.
func (m *Model) handleSessionLoaded(msg sessionLoadedMsg) tea.Cmd {
	if msg.gen != m.sessionGen {
		return nil
	}
	if msg.err != nil {
		m.setNotice("could not open the session: "+msg.err.Error(), true)
		return nil
	}
	m.session = msg.session
	m.transcript.Reset(msg.msgs)
	m.focus = focusInput
	m.input.Focus()
	// Nothing found at start-up is retried by itself; a reply cut off by a crash is offered
	// to the operator instead.
	if n := len(msg.msgs); n > 0 && msg.msgs[n-1].Status == chat.StatusInterrupted {
		m.setNotice("interrupted — r to regenerate (esc selects the reply)", false)
	}
	if len(msg.msgs) == firstScreen {
		return m.loadOlder(msg.msgs[0].ID)
	}
	return nil
}

// picker is the session list opened by /sessions.
type picker struct {
	sessions []history.Session
	cursor   int
}

// handleSessions opens the picker on the newest session.
func (m *Model) handleSessions(msg sessionsMsg) {
	if msg.err != nil {
		m.setNotice("could not list sessions: "+msg.err.Error(), true)
		return
	}
	if len(msg.sessions) == 0 {
		m.setNotice("no stored sessions", false)
		return
	}
	m.picker = picker{sessions: msg.sessions}
	for i, s := range msg.sessions {
		if s.ID == m.session.ID {
			m.picker.cursor = i
		}
	}
	m.focus = focusPicker
	m.input.Blur()
}

// pickerKey handles a key while the picker is open.
func (m *Model) pickerKey(msg tea.KeyPressMsg) tea.Cmd {
	p := &m.picker
	switch msg.String() {
	case "up", "k":
		p.cursor = max(0, p.cursor-1)
	case "down", "j":
		p.cursor = min(len(p.sessions)-1, p.cursor+1)
	case "enter":
		s := p.sessions[p.cursor]
		m.closePicker()
		if s.ID == m.session.ID {
			return nil
		}
		return m.switchTo(func(db *history.DB) (history.Session, error) { return db.Session(s.ID) })
	case "esc", "q":
		m.closePicker()
	}
	return nil
}

func (m *Model) closePicker() {
	m.picker = picker{}
	m.focus = focusInput
	m.input.Focus()
}

// pickerView draws the session list in the transcript's place.
func (m *Model) pickerView(height int) []string {
	st := m.styles
	lines := []string{st.ReplyLabel.Render("Sessions") + st.Muted.Render("  ↑/↓ choose · enter open · esc close"), ""}
	rows := max(1, height-len(lines))
	first := max(0, min(m.picker.cursor-rows/2, len(m.picker.sessions)-rows))
	for i := first; i < len(m.picker.sessions) && len(lines) < height; i++ {
		s := m.picker.sessions[i]
		title := s.Title
		if title == "" {
			title = "(empty)"
		}
		row := fmt.Sprintf("%s  %s  %d messages  %s", s.UpdatedAt.Local().Format("2006-01-02 15:04"),
			sanitize.String(title), s.Messages, shortID(s.ID))
		if i == m.picker.cursor {
			lines = append(lines, st.PickerFocus.Render("› "+row))
		} else {
			lines = append(lines, st.PickerItem.Render(row))
		}
	}
	for len(lines) < height {
		lines = append(lines, "")
	}
	return lines[:height]
}

// shortID is the first characters of a session id, enough to tell sessions apart.
func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// versionView shows the versions of one reply, oldest first, in the transcript's place.
type versionView struct {
	versions []history.Message
	idx      int
	view     *transcriptView
}

// showVersions asks for the versions of reply id, to show the one before it (dir -1) or
// after it (+1).
func (m *Model) showVersions(id int64, dir int) tea.Cmd {
	anchor := m.transcript.Anchor(id)
	if anchor == 0 {
		return nil
	}
	db, gen := m.db, m.sessionGen
	return func() tea.Msg {
		v, err := db.Versions(anchor)
		return versionsMsg{gen: gen, reply: id, dir: dir, versions: v, err: err}
	}
}

// handleVersions opens the version view on the version next to the selected reply.
func (m *Model) handleVersions(msg versionsMsg) {
	if msg.gen != m.sessionGen || m.focus != focusTranscript {
		return
	}
	if msg.err != nil {
		m.setNotice("could not read the versions: "+msg.err.Error(), true)
		return
	}
	at := slices.IndexFunc(msg.versions, func(v history.Message) bool { return v.ID == msg.reply })
	i := at + msg.dir
	switch {
	case len(msg.versions) < 2:
		m.setNotice("this reply has only one version", false)
		return
	case at < 0 || i < 0:
		m.setNotice("no earlier version of this reply", false)
		return
	case i >= len(msg.versions):
		m.setNotice("no later version of this reply", false)
		return
	}
	m.notice = ""
	m.versions = versionView{versions: msg.versions, view: newTranscript(m.styles)}
	m.versions.view.SetDark(m.dark)
	m.focus = focusVersions
	m.showVersion(i)
}

// showVersion shows version i of the version view.
func (m *Model) showVersion(i int) {
	v := &m.versions
	v.idx = max(0, min(i, len(v.versions)-1))
	v.view.Reset(v.versions[v.idx : v.idx+1])
	v.view.GotoTop()
}

// versionsKey handles a key while the version view is open.
func (m *Model) versionsKey(msg tea.KeyPressMsg) tea.Cmd {
	v := &m.versions
	switch msg.String() {
	case "[":
		m.showVersion(v.idx - 1)
	case "]":
		m.showVersion(v.idx + 1)
	case "up", "k":
		v.view.ScrollUp(1)
	case "down", "j":
		v.view.ScrollDown(1)
	case "pgup":
		v.view.ScrollUp(max(1, v.view.height-1))
	case "pgdown", "space":
		v.view.ScrollDown(max(1, v.view.height-1))
	case "esc", "q":
		m.versions = versionView{}
		m.focus = focusTranscript
	}
	return nil
}

// versionsView draws the version view in the transcript's place: a title line, then the
// version as the transcript would show it.
func (m *Model) versionsView(height int) []string {
	st := m.styles
	v := m.versions
	cur := v.versions[v.idx]
	title := st.ReplyLabel.Render(fmt.Sprintf("Version %d/%d", v.idx+1, len(v.versions)))
	state := " · live"
	if cur.Superseded {
		state = " · superseded"
	}
	title += st.Muted.Render(state + "  [ older · ] newer · ↑/↓ scroll · esc close")
	return append([]string{ansi.Truncate(title, m.width, "…")}, v.view.View()...)
}
