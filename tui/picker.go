package tui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"parley/history"
	"parley/internal/chat"
	"parley/internal/sanitize"
	"parley/tui/keyhelp"
)

// This file owns the session picker opened by /sessions: its state, keys and view. Typing
// narrows it (pickerfilter.go).

// picker is the session list, drawn in the transcript's place.
type picker struct {
	filterList[history.Session]
	pickerSearch
	// renaming is the session whose title is being typed (pickeredit.go), "" when none is;
	// title is the title so far.
	renaming, title string
}

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
	m.picker = picker{filterList: newFilterList(msg.sessions, func(s history.Session) bool { return s.ID == m.session.ID })}
	m.openList(focusPicker)
	return nil
}

// pickerKey handles a key while the picker is open. Opening another session while a reply is
// being written asks first.
func (m *Model) pickerKey(msg tea.KeyPressMsg, pending confirm) tea.Cmd {
	if m.picker.renaming != "" {
		return m.renameKey(msg)
	}
	k, shown := m.keys.Picker, m.picker.shown()
	if len(shown) > 0 {
		switch s := shown[m.picker.cursor]; {
		case key.Matches(msg, k.Delete):
			return m.deleteSession(s, pending)
		case key.Matches(msg, k.Rename):
			m.picker.renaming, m.picker.title = s.ID, s.Title
			return nil
		case key.Matches(msg, k.Choose) && !m.confirmOpen(s.ID, sessionTitle(s), pending):
			return nil
		}
	}
	query, hits := m.picker.query, m.picker.hits
	s, did := choose(m, &m.picker.filterList, msg)
	switch {
	case did == listTyped:
		return m.searchPicker()
	case did != listChose:
		return nil
	}
	hit, matched := hits[s.ID]
	var cmd tea.Cmd
	if s.ID != m.session.ID {
		cmd = m.switchTo(sessionByID(s.ID))
	}
	if matched {
		// Opened from a search: the message that matched is shown and selected, and n finds
		// the words again.
		m.finding = finding{query: query, reveal: hit.MessageID}
		m.revealFound()
	}
	return cmd
}

// pickerView draws the session list in the transcript's place: height lines.
func (m *Model) pickerView(height int) []string {
	st := m.styles
	k := m.keys.Picker
	look := listLook{title: "Sessions", choose: "open", typing: "type to search", query: "search", none: "no session's title or messages hold ",
		more: []key.Binding{k.Delete, k.Rename}}
	if m.picker.renaming != "" {
		look.heading = st.ReplyLabel.Render("Rename: ") + sanitize.String(m.picker.title) + "▏" +
			st.Muted.Render("  "+keyhelp.Hint(keyhelp.Relabel(k.Choose, "saves"), keyhelp.Relabel(k.Close, "keeps the title")))
	}
	room := max(0, m.width-2)
	return m.picker.view(st, k, m.width, height, look, func(s history.Session) string {
		row := fmt.Sprintf("%s  %s  %d messages  %s", chat.FormatDate(s.UpdatedAt),
			sanitize.String(sessionTitle(s)), s.Messages, shortID(s.ID))
		if e := m.picker.excerpt(s.ID, room, st); e != "" {
			// The words that matched come first: a narrow screen cuts the rest, not them.
			row = e + st.Muted.Render("  · "+row)
		}
		return ansi.Truncate(row, room, "…")
	})
}

// sessionTitle is how the picker names session s.
func sessionTitle(s history.Session) string {
	if s.Title == "" {
		return "(empty)"
	}
	return s.Title
}

// shortID is the first characters of a session id, enough to tell sessions apart.
func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
