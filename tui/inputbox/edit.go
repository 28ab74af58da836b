package inputbox

import (
	"slices"
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// This file edits the message box's text: the keys that move the cursor or change the text (a
// character is a grapheme cluster, grapheme.go),
// and sanitizeInput, which turns typed and pasted text into the runes the box holds.

// key applies an editing key, or types the key's text.
func (m *Box) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.KeyMap
	goal := -1
	switch {
	case key.Matches(msg, k.InsertNewline):
		m.insert([]rune{'\n'})
	case key.Matches(msg, k.Paste):
		return readClipboard
	case key.Matches(msg, k.CharacterForward):
		if m.col < len(m.line()) {
			m.col = clusterEnd(m.line(), m.col)
		} else if m.row < len(m.lines)-1 {
			m.row, m.col = m.row+1, 0
		}
	case key.Matches(msg, k.CharacterBackward):
		if m.col > 0 {
			m.col = clusterStart(m.line(), m.col)
		} else if m.row > 0 {
			m.row, m.col = m.row-1, len(m.lines[m.row-1].runes)
		}
	case key.Matches(msg, k.WordForward):
		m.col = m.wordEnd()
	case key.Matches(msg, k.WordBackward):
		m.col = m.wordStart()
	case key.Matches(msg, k.LineNext):
		goal = m.vertical(1)
	case key.Matches(msg, k.LinePrevious):
		goal = m.vertical(-1)
	case key.Matches(msg, k.LineStart):
		m.col = 0
	case key.Matches(msg, k.LineEnd):
		m.col = len(m.line())
	case key.Matches(msg, k.InputBegin):
		m.row, m.col = 0, 0
	case key.Matches(msg, k.InputEnd):
		m.row = len(m.lines) - 1
		m.col = len(m.line())
	case key.Matches(msg, k.DeleteCharacterBackward):
		if m.col > 0 {
			m.delete(clusterStart(m.line(), m.col), m.col)
		} else {
			m.joinUp()
		}
	case key.Matches(msg, k.DeleteCharacterForward):
		if m.col < len(m.line()) {
			m.delete(m.col, clusterEnd(m.line(), m.col))
		} else {
			m.joinDown()
		}
	case key.Matches(msg, k.DeleteWordBackward):
		if m.col > 0 {
			m.delete(m.wordStart(), m.col)
		} else {
			m.joinUp()
		}
	case key.Matches(msg, k.DeleteWordForward):
		if m.col < len(m.line()) {
			m.delete(m.col, m.wordEnd())
		} else {
			m.joinDown()
		}
	case key.Matches(msg, k.DeleteBeforeCursor):
		m.delete(0, m.col)
	case key.Matches(msg, k.DeleteAfterCursor):
		m.delete(m.col, len(m.line()))
	default:
		if msg.Text != "" {
			m.insert(sanitizeInput(msg.Text, false))
		}
	}
	m.goal = goal
	m.scroll()
	return nil
}

// sanitizeInput turns text into runes the box holds: line ends become "\n", control
// characters and paste runes are dropped, and tabs become four spaces unless keepTabs (a
// collapsed paste keeps its tabs, since it is sent as it was pasted).
func sanitizeInput(text string, keepTabs bool) []rune {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	out := make([]rune, 0, len(text))
	for _, r := range text {
		switch {
		case r == '\r':
			out = append(out, '\n')
		case r == '\t' && !keepTabs:
			out = append(out, ' ', ' ', ' ', ' ')
		case r == '\n' || r == '\t':
			out = append(out, r)
		case unicode.IsControl(r) || r >= pasteRune:
		default:
			out = append(out, r)
		}
	}
	return out
}

// line returns the cursor's line.
func (m *Box) line() []rune { return m.lines[m.row].runes }

// edited notes that line i changed: its rows are wrapped again when drawn, and the text has a
// new revision.
func (m *Box) edited(i int) {
	m.lines[i].rows = nil
	m.rev++
}

// insert inserts runes, which may hold newlines, at the cursor and moves the cursor after
// them. Only the cursor's line is copied; the lines after it move down in one copy.
func (m *Box) insert(rs []rune) {
	parts := splitRunes(rs)
	cur := m.line()
	rest := slices.Clone(cur[m.col:])
	first := append(cur[:m.col:m.col], parts[0]...)
	if len(parts) == 1 {
		m.lines[m.row].runes = append(first, rest...)
		m.edited(m.row)
		m.col += len(parts[0])
		return
	}
	m.lines[m.row].runes = first
	m.edited(m.row)
	added := make([]textLine, len(parts)-1)
	for i, p := range parts[1:] {
		added[i].runes = p
	}
	last := &added[len(added)-1]
	m.col = len(last.runes)
	last.runes = append(last.runes, rest...)
	m.lines = slices.Insert(m.lines, m.row+1, added...)
	m.row += len(added)
}

// splitRunes splits runes at newlines; each part has a capacity of its own.
func splitRunes(rs []rune) [][]rune {
	var parts [][]rune
	for {
		i := slices.Index(rs, '\n')
		if i < 0 {
			return append(parts, slices.Clip(rs))
		}
		parts = append(parts, rs[:i:i])
		rs = rs[i+1:]
	}
}

// delete deletes runes [from, to) of the cursor's line and puts the cursor at from.
func (m *Box) delete(from, to int) {
	l := m.line()
	for _, r := range l[from:to] {
		if r >= pasteRune {
			m.held--
		}
	}
	m.lines[m.row].runes = append(l[:from], l[to:]...)
	m.edited(m.row)
	m.col = from
}

// joinUp joins the cursor's line to the end of the one above, the cursor at the seam.
func (m *Box) joinUp() {
	if m.row == 0 {
		return
	}
	m.row--
	m.col = len(m.line())
	m.joinDown()
}

// joinDown joins the line below to the end of the cursor's line.
func (m *Box) joinDown() {
	if m.row == len(m.lines)-1 {
		return
	}
	m.lines[m.row].runes = append(m.line(), m.lines[m.row+1].runes...)
	m.edited(m.row)
	m.lines = slices.Delete(m.lines, m.row+1, m.row+2)
}

// wordEnd returns the end of the word at or after the cursor, on its line.
func (m *Box) wordEnd() int {
	l, i := m.line(), m.col
	for i < len(l) && unicode.IsSpace(l[i]) {
		i++
	}
	for i < len(l) && !unicode.IsSpace(l[i]) {
		i++
	}
	return i
}

// wordStart returns the start of the word before the cursor, on its line.
func (m *Box) wordStart() int {
	l, i := m.line(), m.col
	for i > 0 && unicode.IsSpace(l[i-1]) {
		i--
	}
	for i > 0 && !unicode.IsSpace(l[i-1]) {
		i--
	}
	return i
}
