package tui

import (
	"fmt"
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/sanitize"
)

// This file owns what the session picker changes: a session deleted (asked first) and a
// session renamed, its title typed in the list's heading.

// sessionEditedMsg says session id was deleted, or renamed to title, or why not.
type sessionEditedMsg struct {
	id, title string
	deleted   bool
	err       error
}

// deleteSession is the delete key on session s: it asks first, and the same key again
// deletes s with its messages. The open session is not deleted.
func (m *Model) deleteSession(s stored.Session, pending confirm) tea.Cmd {
	if s.ID == m.session.ID {
		m.setNotice("this is the open session: open another one to delete it", true)
		return nil
	}
	c := confirm{action: "delete", session: s.ID}
	if pending != c {
		m.ask(c, fmt.Sprintf("%s again deletes “%s” and its %s — it cannot be undone",
			m.keys.Picker.Delete.Help().Key, sanitize.String(sessionTitle(s)), chat.Plural(s.Messages, "message")))
		return nil
	}
	db, title := m.db, s.Title
	return func() tea.Msg {
		return sessionEditedMsg{id: s.ID, title: title, deleted: true, err: db.DeleteSession(s.ID)}
	}
}

// renameKey handles a key while a session's title is typed: enter stores it, esc keeps the
// title it had, other keys edit it.
func (m *Model) renameKey(msg tea.KeyPressMsg) tea.Cmd {
	p, k := &m.picker, m.keys.Picker
	switch {
	case key.Matches(msg, k.Close):
		p.renaming = ""
	case key.Matches(msg, k.Choose):
		id, title := p.renaming, p.title
		p.renaming = ""
		if title == "" {
			m.setNotice("a title needs a word: the session keeps its own", true)
			return nil
		}
		db := m.db
		return func() tea.Msg { return sessionEditedMsg{id: id, title: title, err: db.SetTitle(id, title)} }
	default:
		if t, ok := editQuery(p.title, msg); ok {
			p.title = t
		}
	}
	return nil
}

// handleSessionEdited shows a session deleted or renamed in the picker, and in the header when
// it is the open one.
func (m *Model) handleSessionEdited(msg sessionEditedMsg) tea.Cmd {
	what := map[bool]string{true: "delete", false: "rename"}[msg.deleted]
	if msg.err != nil {
		m.setNotice("could not "+what+" the session: "+msg.err.Error(), true)
		return nil
	}
	p := &m.picker
	i := slices.IndexFunc(p.items, func(s stored.Session) bool { return s.ID == msg.id })
	switch {
	case msg.deleted:
		if i >= 0 {
			p.items = slices.Delete(p.items, i, i+1)
		}
		m.setNotice("deleted “"+sanitize.String(sessionTitle(stored.Session{Title: msg.title}))+"”", false)
	default:
		if i >= 0 {
			p.items[i].Title = msg.title
		}
		if msg.id == m.session.ID {
			m.session.Title = msg.title
		}
		m.setNotice("renamed “"+sanitize.String(msg.title)+"”", false)
	}
	p.refilter()
	p.cursor = max(0, min(p.cursor, len(p.shown())-1))
	return nil
}
