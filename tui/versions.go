package tui

import (
	"errors"
	"fmt"
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"parley/history"
	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/wrap"
	"parley/tui/keyhelp"
	"parley/tui/transcript"
)

// This file owns the version view, opened with [ and ] on a reply: its state, keys and view.
// A superseded version is shown with the turns it went on with; y copies it and enter
// restores it, turns and all, as the live conversation.

// versionView shows the versions of one reply, oldest first, in the transcript's place.
type versionView struct {
	list    []stored.Message
	carried map[int64][]stored.Message
	shown   int // the index in list of the version shown
	// questions are the earlier texts of the question, shown above the versions answering
	// them, by id.
	questions map[int64]stored.Message
	view      *transcript.List
}

// showVersions asks for the versions of reply id (or of the reply to operator message id),
// to show the one before it (dir -1) or after it (+1). A version that answers an earlier text
// of the question (an edit) comes with that text; attempts that produced nothing are not
// versions, and are left out.
func (m *Model) showVersions(id int64, dir int) tea.Cmd {
	anchor, reply := m.transcript.Anchor(id), m.transcript.Reply(id)
	if anchor == 0 {
		return nil
	}
	db, sessionGen := m.db, m.sessionGen
	return func() tea.Msg {
		all, err := db.Versions(anchor)
		msg := versionsMsg{sessionGen: sessionGen, reply: reply, dir: dir, carried: map[int64][]stored.Message{},
			questions: map[int64]stored.Message{}, err: err}
		for _, v := range all {
			if v.Superseded && v.Content == "" && v.Reasoning == "" {
				continue
			}
			msg.versions = append(msg.versions, v)
			if v.Superseded && msg.err == nil {
				msg.carried[v.ID], msg.err = db.Carried(v.ID)
			}
			if _, ok := msg.questions[v.AnchorID]; !ok && msg.err == nil && v.AnchorID != anchor {
				msg.questions[v.AnchorID], msg.err = db.Message(v.AnchorID)
			}
		}
		return msg
	}
}

// handleVersions opens the version view on the version next to the selected reply.
func (m *Model) handleVersions(msg versionsMsg) tea.Cmd {
	if m.focus != focusTranscript || !m.accepts(msg.sessionGen, msg.err, "read the versions") {
		return nil
	}
	at := slices.IndexFunc(msg.versions, func(v stored.Message) bool { return v.ID == msg.reply })
	i := at + msg.dir
	switch {
	case len(msg.versions) < 2:
		m.setNotice("this reply has only one version", false)
		return nil
	case at < 0 || i < 0:
		m.setNotice("no earlier version of this reply", false)
		return nil
	case i >= len(msg.versions):
		m.setNotice("no later version of this reply", false)
		return nil
	}
	m.notice = ""
	m.versions = versionView{list: msg.versions, carried: msg.carried, questions: msg.questions, view: transcript.New(m.styles.transcript())}
	m.versions.view.HideNumbers()
	m.versions.view.SetDark(m.dark)
	m.versions.view.SetReadingWidth(m.transcript.ReadingWidth())
	m.focus = focusVersions
	m.showVersion(i)
	return nil
}

// showVersion shows version i of the version view, or the nearest there is, and the turns it
// went on with.
func (m *Model) showVersion(i int) {
	v := &m.versions
	v.shown = max(0, min(i, len(v.list)-1))
	version := v.list[v.shown]
	shown := append([]stored.Message{version}, v.carried[version.ID]...)
	if q, ok := v.questions[version.AnchorID]; ok {
		shown = append([]stored.Message{q}, shown...)
	}
	v.view.Reset(shown)
	v.view.GotoTop()
	m.updateKeys()
	m.layout() // the title may take another number of lines
}

// versionsKey handles a key while the version view is open.
func (m *Model) versionsKey(msg tea.KeyPressMsg) tea.Cmd {
	v, k := &m.versions, m.keys.Versions
	page := max(1, v.view.Height()-1)
	switch {
	case key.Matches(msg, k.Older):
		m.showVersion(v.shown - 1)
	case key.Matches(msg, k.Newer):
		m.showVersion(v.shown + 1)
	case key.Matches(msg, k.ScrollUp):
		v.view.ScrollUp(1)
	case key.Matches(msg, k.ScrollDown):
		v.view.ScrollDown(1)
	case key.Matches(msg, k.PageUp):
		v.view.ScrollUp(page)
	case key.Matches(msg, k.PageDown):
		v.view.ScrollDown(page)
	case key.Matches(msg, k.Copy):
		return m.copyText(v.view.Text(v.list[v.shown].ID), fmt.Sprintf("version %d", v.shown+1))
	case key.Matches(msg, k.Restore):
		return m.restore(v.list[v.shown].ID)
	case key.Matches(msg, k.Close):
		m.closeVersions()
	}
	return nil
}

// closeVersions goes back to the transcript.
func (m *Model) closeVersions() {
	m.versions = versionView{}
	m.focus = focusTranscript
}

// restore makes version id the live reply, with the turns it went on with. Only on an idle
// screen: a reply being written would be superseded under its run.
func (m *Model) restore(id int64) tea.Cmd {
	if m.active != nil || len(m.queue) > 0 || m.posting {
		m.setNotice("a reply is being written: restore when it has ended", true)
		return nil
	}
	db, sessionGen := m.db, m.sessionGen
	return func() tea.Msg {
		return restoredMsg{sessionGen: sessionGen, reply: id, err: db.Restore(id)}
	}
}

// handleRestored reads the session again after a restore, which changed what is live.
func (m *Model) handleRestored(msg restoredMsg) tea.Cmd {
	if msg.sessionGen != m.sessionGen {
		return nil
	}
	if msg.err != nil {
		if errors.Is(msg.err, history.ErrStreaming) {
			m.setNotice("a reply is being written: restore when it has ended", true)
		} else {
			m.setNotice("could not restore the version: "+msg.err.Error(), true)
		}
		return nil
	}
	shown := m.versions.shown + 1
	m.closeVersions()
	m.tier2.Disarm()
	m.sessionGen++
	m.setNotice(fmt.Sprintf("restored version %d: the conversation goes on from it", shown), false)
	return m.loadSession(m.session.ID)
}

// versionsView draws the version view in the transcript's place: a title, then the version
// and the turns it went on with, as the transcript would show them.
func (m *Model) versionsView() []string {
	return append(m.versionsTitle(), m.versions.view.View()...)
}

// versionsTitle is the version view's title, wrapped to the width: which version, whether it
// is live, and the keys.
func (m *Model) versionsTitle() []string {
	st, k := m.styles, m.keys.Versions
	v := m.versions
	version := v.list[v.shown]
	state := " · live"
	if version.Superseded {
		state = " · superseded"
		if n := len(v.carried[version.ID]); n > 0 {
			state += fmt.Sprintf(", with the %s after it", chat.Plural(n, "message"))
		}
	}
	bindings := []key.Binding{k.Older, k.Newer, k.Copy}
	if k.Restore.Enabled() {
		bindings = append(bindings, k.Restore)
	}
	bindings = append(bindings, k.Close)
	title, keys := fmt.Sprintf("Version %d/%d%s", v.shown+1, len(v.list), state), keyhelp.Hint(bindings...)
	if lipgloss.Width(title)+2+lipgloss.Width(keys) <= m.width {
		return append([]string{st.ReplyLabel.Render(title) + st.Muted.Render("  "+keys)}, m.compareTable()...)
	}
	var lines []string
	for _, l := range wrap.Lines(title, m.width) {
		lines = append(lines, st.ReplyLabel.Render(l))
	}
	for _, l := range wrap.Lines(keys, m.width) {
		lines = append(lines, st.Muted.Render(l))
	}
	return append(lines, m.compareTable()...)
}
