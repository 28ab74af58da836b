package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/sanitize"
	"parley/tui/picker"
)

// This file opens the session picker (/sessions, tui/picker) and does what it asks: open a
// session (asked first while a reply is being written), delete one (asked first).

// listSessions reads the stored sessions, to open the picker on them (/sessions).
func (m *Model) listSessions() tea.Cmd {
	db := m.db
	return func() tea.Msg {
		s, err := db.Sessions()
		return sessionsMsg{sessions: s, err: err}
	}
}

// handleSessions opens the picker on the current session.
func (m *Model) handleSessions(msg sessionsMsg) tea.Cmd {
	if msg.err != nil {
		m.setNotice("could not list sessions: "+msg.err.Error(), true)
		return nil
	}
	if len(msg.sessions) == 0 {
		m.setNotice("no stored sessions", false)
		return nil
	}
	m.openOverlay(picker.New(msg.sessions, m.session.ID, m.db, m.keys.Picker, m.styles.list()))
	return nil
}

// openChosen is enter on a session in the picker: it is opened, asked first while a reply is
// being written. Opened from a search, the message that matched is shown and selected, and n
// finds the words again.
func (m *Model) openChosen(o picker.Open, pending confirm) tea.Cmd {
	if !m.confirmOpen(o.Session.ID, picker.Title(o.Session), pending) {
		return nil
	}
	m.dropOverlay(picker.ID)
	var cmd tea.Cmd
	if o.Session.ID != m.session.ID {
		cmd = m.switchTo(sessionByID(o.Session.ID))
	}
	if o.Matched {
		m.finding = finding{query: o.Query, reveal: o.Hit.MessageID}
		m.revealFound()
	}
	return cmd
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
			m.keys.Picker.Delete.Help().Key, sanitize.String(picker.Title(s)), chat.Plural(s.Messages, "message")))
		return nil
	}
	db, title := m.db, s.Title
	return func() tea.Msg {
		return picker.Edited{ID: s.ID, Title: title, Deleted: true, Err: db.DeleteSession(s.ID)}
	}
}

// handleSessionEdited says a session was deleted or renamed, shows it so in the picker, and in
// the header when it is the open one.
func (m *Model) handleSessionEdited(msg picker.Edited) tea.Cmd {
	if p := m.overlays.Find(picker.ID); p != nil {
		p.Update(msg)
	}
	what := map[bool]string{true: "delete", false: "rename"}[msg.Deleted]
	switch {
	case msg.Err != nil:
		m.setNotice("could not "+what+" the session: "+msg.Err.Error(), true)
	case msg.Deleted:
		m.setNotice("deleted “"+sanitize.String(picker.Title(stored.Session{Title: msg.Title}))+"”", false)
	default:
		if msg.ID == m.session.ID {
			m.session.Title = msg.Title
		}
		m.setNotice("renamed “"+sanitize.String(msg.Title)+"”", false)
	}
	return nil
}
