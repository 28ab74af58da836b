package tui

import (
	"fmt"
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"parley/history"
)

// This file owns the version view, opened with [ and ] on a reply: its state, keys and view.

// versionView shows the versions of one reply, oldest first, in the transcript's place.
type versionView struct {
	list  []history.Message
	shown int // the index in list of the version shown
	// questions are the earlier texts of the question, shown above the versions answering
	// them, by id.
	questions map[int64]history.Message
	view      *transcriptView
}

// showVersions asks for the versions of reply id (or of the reply to operator message id),
// to show the one before it (dir -1) or after it (+1). A version that answers an earlier text
// of the question (an edit) comes with that text.
func (m *Model) showVersions(id int64, dir int) tea.Cmd {
	anchor, reply := m.transcript.Anchor(id), m.transcript.replyTo(id)
	if anchor == 0 {
		return nil
	}
	db, sessionGen := m.db, m.sessionGen
	return func() tea.Msg {
		v, err := db.Versions(anchor)
		questions := map[int64]history.Message{}
		for _, r := range v {
			if _, ok := questions[r.AnchorID]; !ok && err == nil && r.AnchorID != anchor {
				questions[r.AnchorID], err = db.Message(r.AnchorID)
			}
		}
		return versionsMsg{sessionGen: sessionGen, reply: reply, dir: dir, versions: v, questions: questions, err: err}
	}
}

// handleVersions opens the version view on the version next to the selected reply.
func (m *Model) handleVersions(msg versionsMsg) {
	if msg.sessionGen != m.sessionGen || m.focus != focusTranscript {
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
	m.versions = versionView{list: msg.versions, questions: msg.questions, view: newTranscript(m.styles)}
	m.versions.view.SetDark(m.dark)
	m.focus = focusVersions
	m.showVersion(i)
}

// showVersion shows version i of the version view, or the nearest there is.
func (m *Model) showVersion(i int) {
	v := &m.versions
	v.shown = max(0, min(i, len(v.list)-1))
	shown := v.list[v.shown : v.shown+1]
	if q, ok := v.questions[shown[0].AnchorID]; ok {
		shown = []history.Message{q, shown[0]}
	}
	v.view.Reset(shown)
	v.view.GotoTop()
}

// versionsKey handles a key while the version view is open.
func (m *Model) versionsKey(msg tea.KeyPressMsg) tea.Cmd {
	v, k := &m.versions, m.keys.Versions
	page := max(1, v.view.height-1)
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
	case key.Matches(msg, k.Close):
		m.versions = versionView{}
		m.focus = focusTranscript
	}
	return nil
}

// versionsView draws the version view in the transcript's place: a title line, then the
// version as the transcript would show it.
func (m *Model) versionsView() []string {
	st, k := m.styles, m.keys.Versions
	v := m.versions
	title := st.ReplyLabel.Render(fmt.Sprintf("Version %d/%d", v.shown+1, len(v.list)))
	state := " · live"
	if v.list[v.shown].Superseded {
		state = " · superseded"
	}
	title += st.Muted.Render(state + "  " + hint(k.Older, k.Newer, joined(k.ScrollUp, k.ScrollDown), k.Close))
	return append([]string{ansi.Truncate(title, m.width, "…")}, v.view.View()...)
}
