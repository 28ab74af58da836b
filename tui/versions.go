package tui

import (
	"errors"
	"fmt"
	"slices"

	tea "charm.land/bubbletea/v2"

	"parley/agent"
	"parley/history"
	"parley/history/stored"
	"parley/tui/transcript"
	"parley/tui/versions"
)

// This file reads the versions of a reply for the version view (tui/versions), and restores
// the one it asks for, turns and all, as the live conversation.

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

// handleVersions opens the version view (tui/versions) on the version next to the selected
// reply.
func (m *Model) handleVersions(msg versionsMsg) tea.Cmd {
	if m.focus != focusTranscript || !m.accepts(&m.noticeLine, msg.sessionGen, msg.err, "read the versions") {
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
	prices := listPrices
	if m.spend != nil {
		prices = m.spend.Prices
	}
	read := versions.Read{List: msg.versions, Carried: msg.carried, Questions: msg.questions}
	m.openOverlay(versions.New(read, i, m.keys.Versions, m.styles.versions(), prices, m.transcript.ReadingWidth(), m.dark))
	return nil
}

// listPrices are the built-in prices, for a screen with no spend guard to price with.
var listPrices = agent.DefaultPrices()

// restore makes version id (number n in the view) the live reply, with the turns it went on
// with. Only on an idle screen: a reply being written would be superseded under its run.
func (m *Model) restore(id int64, n int) tea.Cmd {
	if m.active != nil || len(m.queue) > 0 || m.posting {
		m.setNotice("a reply is being written: restore when it has ended", true)
		return nil
	}
	db, sessionGen := m.db, m.sessionGen
	return func() tea.Msg {
		return restoredMsg{sessionGen: sessionGen, reply: id, number: n, err: db.Restore(id)}
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
	m.dropOverlay(versions.ID)
	m.tier2.Disarm()
	m.sessionGen++
	m.setNotice(fmt.Sprintf("restored version %d: the conversation goes on from it", msg.number), false)
	return m.loadSession(m.session.ID)
}

// This part reads which replies have other versions, for their ‹ 2/3 › mark: when a session
// opens and whenever a run ends, a regeneration is stored or a version restored.

// marksMsg carries the version marks of the session's replies.
type marksMsg struct {
	sessionGen int
	marks      map[int64]stored.Mark
	err        error
}

// readMarks reads the version marks of the session's replies.
func (s *sessionState) readMarks() tea.Cmd {
	if s.db == nil || s.session.ID == "" {
		return nil
	}
	db, id, gen := s.db, s.session.ID, s.sessionGen
	return func() tea.Msg {
		marks, err := db.VersionMarks(id)
		return marksMsg{sessionGen: gen, marks: marks, err: err}
	}
}

// handleMarks puts the marks on the replies of t; marks that cannot be read are left as they were:
// a missing mark hides nothing, [ and ] still find the versions.
func (s *sessionState) handleMarks(t *transcript.List, msg marksMsg) {
	if msg.sessionGen == s.sessionGen && msg.err == nil {
		t.SetMarks(msg.marks)
	}
}
