package inputbox

import (
	"strings"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// This file wraps and draws the message box. Rows are found per line, and only for the lines
// on screen or under the cursor, so drawing and moving cost the rows shown, never the text.

// SetWidth sets the box's width, the prompt included. Lines are wrapped again as they are
// drawn.
func (m *Box) SetWidth(w int) {
	if w != m.width {
		m.width = w
		m.wrapGen++
		m.scroll()
	}
}

// textWidth is the width the text is drawn in: the box less the prompt.
func (m *Box) textWidth() int { return max(m.width-ansi.StringWidth(m.Prompt), 2) }

// wrapWidth is the width rows are filled to: one column short of the text's, so that the
// cursor after a full row's last character is still on screen.
func (m *Box) wrapWidth() int { return m.textWidth() - 1 }

// runeWidth returns the columns r takes: a paste rune, its label's.
func (m *Box) runeWidth(r rune) int {
	switch {
	case r >= pasteRune:
		return min(ansi.StringWidth(m.pastes[r-pasteRune].Label), m.wrapWidth())
	case r < 0x80:
		return 1
	}
	return ansi.StringWidth(string(r))
}

// runesWidth returns the columns rs take.
func (m *Box) runesWidth(rs []rune) int {
	n := 0
	for _, r := range rs {
		n += m.runeWidth(r)
	}
	return n
}

// rows returns the starts of line i's rows, wrapping it if it changed or the width did.
// Words move whole to the next row; a word longer than a row is cut; a space that does not
// fit ends its row in the column kept for the cursor.
func (m *Box) rows(i int) []int {
	l := &m.lines[i]
	if l.rows != nil && l.gen == m.wrapGen {
		return l.rows
	}
	w := m.wrapWidth()
	rows := l.rows[:0]
	rows = append(rows, 0)
	start, col, brk := 0, 0, -1
	for j, r := range l.runes {
		rw := m.runeWidth(r)
		if col+rw > w && j > start {
			switch {
			case r == ' ' && col < w+1:
				start, col, brk = j+1, 0, -1
				rows = append(rows, start)
				continue
			case brk > start:
				start = brk
			default:
				start = j
			}
			col, brk = m.runesWidth(l.runes[start:j]), -1
			rows = append(rows, start)
		}
		col += rw
		if r == ' ' {
			brk = j + 1
		}
	}
	l.rows, l.gen = rows, m.wrapGen
	return rows
}

// cursorRow returns the cursor's row in its line and its column on screen in that row.
func (m *Box) cursorRow() (row, x int) {
	rows := m.rows(m.row)
	for row+1 < len(rows) && rows[row+1] <= m.col {
		row++
	}
	return row, m.runesWidth(m.line()[rows[row]:m.col])
}

// rowSpan returns the runes of row r of line i.
func (m *Box) rowSpan(i, r int) []rune {
	rows := m.rows(i)
	end := len(m.lines[i].runes)
	if r+1 < len(rows) {
		end = rows[r+1]
	}
	return m.lines[i].runes[rows[r]:end]
}

// next returns the row after p, and false after the last.
func (m *Box) next(p rowPos) (rowPos, bool) {
	if p.row+1 < len(m.rows(p.line)) {
		return rowPos{p.line, p.row + 1}, true
	}
	if p.line+1 < len(m.lines) {
		return rowPos{p.line + 1, 0}, true
	}
	return p, false
}

// prev returns the row before p, and false before the first.
func (m *Box) prev(p rowPos) (rowPos, bool) {
	if p.row > 0 {
		return rowPos{p.line, p.row - 1}, true
	}
	if p.line > 0 {
		return rowPos{p.line - 1, len(m.rows(p.line-1)) - 1}, true
	}
	return p, false
}

// before reports whether row p comes before row q.
func before(p, q rowPos) bool { return p.line < q.line || (p.line == q.line && p.row < q.row) }

// vertical moves the cursor n rows down (or up), keeping its column, and returns the column
// to keep.
func (m *Box) vertical(n int) int {
	row, x := m.cursorRow()
	if m.goal >= 0 {
		x = m.goal
	}
	p, ok := rowPos{m.row, row}, true
	if n > 0 {
		p, ok = m.next(p)
	} else {
		p, ok = m.prev(p)
	}
	if !ok {
		// Past the first or last row: to the start or the end of the text.
		if n < 0 {
			m.col = 0
		} else {
			m.col = len(m.line())
		}
		return x
	}
	m.row = p.line
	span := m.rowSpan(p.line, p.row)
	last := p.row == len(m.rows(p.line))-1
	col, w := 0, 0
	for col < len(span) && w+m.runeWidth(span[col]) <= x && (last || col < len(span)-1) {
		w += m.runeWidth(span[col])
		col++
	}
	m.col = m.rows(p.line)[p.row] + col
	return x
}

// Height returns how many rows the box shows: its text's, at most MaxHeight.
func (m Box) Height() int {
	n, p, ok := 1, rowPos{}, true
	for n < MaxHeight {
		if p, ok = m.next(p); !ok {
			break
		}
		n++
	}
	return n
}

// scroll moves the rows on screen so that they hold the cursor and, when the text has
// enough rows, are all filled.
func (m *Box) scroll() {
	if m.width == 0 {
		return
	}
	h := m.Height()
	m.top.line = min(m.top.line, len(m.lines)-1)
	m.top.row = min(m.top.row, len(m.rows(m.top.line))-1)
	row, _ := m.cursorRow()
	cur := rowPos{m.row, row}
	switch {
	case before(cur, m.top):
		m.top = cur
	case cur.line-m.top.line >= h:
		m.top = m.back(cur, h-1)
	default:
		// The cursor no lower than the last row on screen.
		n := 1
		for p := m.top; p != cur && n <= h; n++ {
			p, _ = m.next(p)
		}
		if n > h {
			m.top = m.back(cur, h-1)
		}
	}
	// No empty rows below the text while rows above are hidden.
	shown, p := 1, m.top
	for ok := true; shown < h; shown++ {
		if p, ok = m.next(p); !ok {
			break
		}
	}
	m.top = m.back(m.top, h-shown)
}

// back returns the row n rows before p, or the first.
func (m *Box) back(p rowPos, n int) rowPos {
	for ; n > 0; n-- {
		q, ok := m.prev(p)
		if !ok {
			break
		}
		p = q
	}
	return p
}

// View draws the rows on screen, each behind the prompt; an empty box shows its
// placeholder.
func (m Box) View() string {
	st := m.activeStyle()
	if m.Empty() && m.Placeholder != "" {
		return m.placeholderView(st)
	}
	prompt := st.Prompt.Inherit(st.Base).Inline(true).Render(m.Prompt)
	text := st.Text.Inherit(st.Base).Inline(true)
	label := st.Placeholder.Inherit(st.Base).Inline(true)
	tw := m.textWidth()
	h := m.Height()
	out := make([]string, 0, h)
	p := m.top
	for range h {
		style := text
		if p.line == m.row {
			style = st.CursorLine.Inherit(st.Base).Inline(true)
		}
		var b strings.Builder
		b.WriteString(style.Render(prompt))
		w := 0
		span := m.rowSpan(p.line, p.row)
		for len(span) > 0 {
			n := 0
			for n < len(span) && span[n] < pasteRune {
				n++
			}
			if n > 0 {
				b.WriteString(style.Render(string(span[:n])))
				w += m.runesWidth(span[:n])
			}
			if n < len(span) {
				lw := m.runeWidth(span[n])
				b.WriteString(style.Render(label.Render(ansi.Truncate(m.pastes[span[n]-pasteRune].Label, lw, "…"))))
				w += lw
				n++
			}
			span = span[n:]
		}
		b.WriteString(style.Render(strings.Repeat(" ", max(0, tw-w))))
		out = append(out, b.String())
		var ok bool
		if p, ok = m.next(p); !ok {
			break
		}
	}
	return st.Base.Render(strings.Join(out, "\n"))
}

// placeholderView draws the placeholder's first row as bubbles' textarea does, the cursor
// on its first character.
func (m Box) placeholderView(st textarea.StyleState) string {
	line := st.CursorLine.Inherit(st.Base).Inline(true)
	ph := st.Placeholder.Inherit(st.Base).Inline(true)
	prompt := st.Prompt.Inherit(st.Base).Inline(true).Render(m.Prompt)
	first, _, _ := strings.Cut(strings.TrimSpace(ansi.Hardwrap(ansi.Wordwrap(m.Placeholder, m.textWidth(), ""), m.textWidth(), true)), "\n")
	ch, _ := ansi.FirstGraphemeCluster(first, ansi.GraphemeWidth)
	rest := first[len(ch):]
	gap := strings.Repeat(" ", max(0, m.textWidth()-lipgloss.Width(first)))
	return st.Base.Render(line.Render(prompt) + line.Render(ph.Render(ch)) + line.Render(ph.Render(rest)) + line.Render(gap))
}

// Cursor returns where the terminal's cursor goes, relative to the box, or nil when the box
// does not have the focus.
func (m Box) Cursor() *tea.Cursor {
	if !m.focused {
		return nil
	}
	row, x := m.cursorRow()
	y := 0
	for p := m.top; p != (rowPos{m.row, row}); y++ {
		var ok bool
		if p, ok = m.next(p); !ok {
			break
		}
	}
	c := tea.NewCursor(x+ansi.StringWidth(m.Prompt), y)
	c.Blink = m.styles.Cursor.Blink
	c.Color = m.styles.Cursor.Color
	c.Shape = m.styles.Cursor.Shape
	return c
}

// activeStyle returns the styles for the box's focus.
func (m Box) activeStyle() textarea.StyleState {
	if m.focused {
		return m.styles.Focused
	}
	return m.styles.Blurred
}
