package tui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"parley/history"
	"parley/tui/sanitize"
)

// This file owns the session picker opened by /sessions: its state, keys and view. Typing
// narrows it (pickerfilter.go).

// picker is the session list, drawn in the transcript's place. cursor is an index in shown().
type picker struct {
	sessions []history.Session
	cursor   int
	pickerFilter
}

// listSessions reads the stored sessions, to open the picker on them (/sessions).
func (m *Model) listSessions() tea.Cmd {
	db := m.db
	return func() tea.Msg {
		s, err := db.Sessions()
		return sessionsMsg{sessions: s, err: err}
	}
}

// handle opens the picker on the current session.
func (msg sessionsMsg) handle(m *Model) tea.Cmd {
	if msg.err != nil {
		m.setNotice("could not list sessions: "+msg.err.Error(), true)
		return nil
	}
	if len(msg.sessions) == 0 {
		m.setNotice("no stored sessions", false)
		return nil
	}
	m.picker = picker{sessions: msg.sessions}
	for i, s := range msg.sessions {
		if s.ID == m.session.ID {
			m.picker.cursor = i
		}
	}
	m.focus = focusPicker
	m.input.Blur()
	return nil
}

// pickerKey handles a key while the picker is open.
func (m *Model) pickerKey(msg tea.KeyPressMsg) tea.Cmd {
	p, k := &m.picker, m.keys.Picker
	shown := p.shown()
	switch {
	case key.Matches(msg, k.Up):
		p.cursor = max(0, p.cursor-1)
	case key.Matches(msg, k.Down):
		p.cursor = max(0, min(len(shown)-1, p.cursor+1))
	case key.Matches(msg, k.Choose):
		if len(shown) == 0 {
			return nil
		}
		s := shown[p.cursor]
		m.closePicker()
		if s.ID == m.session.ID {
			return nil
		}
		return m.switchTo(sessionByID(s.ID))
	case key.Matches(msg, k.Close):
		m.closePicker()
	default:
		cmd, _ := m.typeInPicker(msg)
		return cmd
	}
	return nil
}

// closePicker gives the focus back to the input.
func (m *Model) closePicker() {
	m.picker = picker{}
	m.focus = focusInput
	m.input.Focus()
}

// pickerView draws the session list in the transcript's place: height lines.
func (m *Model) pickerView(height int) []string {
	st, k := m.styles, m.keys.Picker
	heading := st.ReplyLabel.Render("Sessions") + st.Muted.Render("  "+hint(joined(k.Up, k.Down), relabel(k.Choose, "open"), k.Close)+" · type to search")
	if q := m.picker.query; q != "" {
		heading += st.Muted.Render("  search: ") + sanitize.String(q)
	}
	lines := []string{ansi.Truncate(heading, m.width, "…"), ""}
	shown := m.picker.shown()
	if len(shown) == 0 {
		lines = append(lines, st.Muted.Render("  no session's title or messages hold "+sanitize.String(m.picker.query)))
	}
	rows := max(1, height-len(lines))
	first := max(0, min(m.picker.cursor-rows/2, len(shown)-rows))
	for i := first; i < len(shown) && len(lines) < height; i++ {
		s := shown[i]
		title := s.Title
		if title == "" {
			title = "(empty)"
		}
		row := fmt.Sprintf("%s  %s  %d messages  %s", s.UpdatedAt.Local().Format("2006-01-02 15:04"),
			sanitize.String(title), s.Messages, shortID(s.ID))
		if e := m.picker.excerpt(s.ID); e != "" {
			row += st.Muted.Render("  " + sanitize.String(e))
		}
		row = ansi.Truncate(row, max(0, m.width-2), "…")
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
