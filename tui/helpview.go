package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"parley/internal/wrap"
)

// This file owns the list of every key and command (?, /help), drawn in the transcript's
// place: its lines, how it scrolls, and the keys that close it. Any key that is none of its
// own closes it and acts as it would, so typing goes on past it.

// helpShown reports whether the list of every key is on screen: it opens over the input and
// the transcript, never over a list or the versions.
func (m *Model) helpShown() bool {
	return m.help.ShowAll && (m.focus == focusInput || m.focus == focusTranscript)
}

// openHelp shows the list of every key from its top.
func (m *Model) openHelp() {
	m.help.ShowAll, m.helpTop = true, 0
}

// helpKey handles a key while the list is shown, and reports whether it did: its keys scroll
// and close it; any other key closes it and is left to act as it would.
func (m *Model) helpKey(msg tea.KeyPressMsg) bool {
	h := m.keys.HelpList
	page := max(1, m.helpRows()-1)
	switch {
	case key.Matches(msg, h.Close):
		m.help.ShowAll = false
	case key.Matches(msg, h.Up):
		m.helpTop--
	case key.Matches(msg, h.Down):
		m.helpTop++
	case key.Matches(msg, h.PageUp):
		m.helpTop -= page
	case key.Matches(msg, h.PageDown):
		m.helpTop += page
	case key.Matches(msg, h.Top):
		m.helpTop = 0
	case key.Matches(msg, h.Bottom):
		m.helpTop = len(m.helpLines())
	default:
		m.help.ShowAll = false
		return false
	}
	return true
}

// scrollHelp moves the list n lines down (up when n < 0): the mouse wheel while it shows.
func (m *Model) scrollHelp(n int) { m.helpTop += n }

// helpRows is how many lines of the list the transcript's place holds: all of it but the line
// that says where the list is, when it does not fit whole.
func (m *Model) helpRows() int {
	rows := m.transcript.Height()
	if len(m.helpLines()) > rows {
		rows--
	}
	return max(rows, 1)
}

// helpLines is the whole list: every key by focus, then the slash commands.
func (m *Model) helpLines() []string {
	lines := m.fullHelp()
	for _, l := range wrap.Lines("commands: "+slashHelp(), m.width) {
		lines = append(lines, m.styles.Muted.Render(l))
	}
	return lines
}

// helpOverlay draws the list in the transcript's place, height lines, from helpTop; when it
// does not fit, the last line says which lines show (the help line names the keys that scroll).
func (m *Model) helpOverlay(height int) []string {
	all := m.helpLines()
	rows := m.helpRows()
	top := max(0, min(m.helpTop, len(all)-rows))
	lines := append([]string(nil), all[top:min(len(all), top+rows)]...)
	if len(all) > height {
		where := fmt.Sprintf("lines %d–%d of %d", top+1, top+len(lines), len(all))
		for len(lines) < height-1 {
			lines = append(lines, "")
		}
		lines = append(lines, m.styles.Muted.Render(ansi.Truncate(where, m.width, "…")))
	}
	for len(lines) < height {
		lines = append(lines, "")
	}
	return lines
}

// clampHelp keeps the list's first line where the list can show from.
func (m *Model) clampHelp() {
	if !m.helpShown() {
		return
	}
	m.helpTop = max(0, min(m.helpTop, len(m.helpLines())-m.helpRows()))
}

// fullHelp lists every key by focus, "key  what it does", each section in as many columns as
// fit the width; an entry wider than the width wraps its description, never cuts it.
func (m *Model) fullHelp() []string {
	st := m.help.Styles
	var lines []string
	for _, sec := range fullKeys(m.keys).sections() {
		lines = append(lines, m.styles.ReplyLabel.Render(sec.title))
		var cells [][]string // each entry's lines, unpadded
		for _, b := range sec.bindings {
			k, d := b.Help().Key, b.Help().Desc
			room := max(m.width-lipgloss.Width(k)-3, 8)
			var cell []string
			for i, l := range wrap.Lines(d, room) {
				if i == 0 {
					cell = append(cell, "  "+st.FullKey.Render(k)+" "+st.FullDesc.Render(l))
				} else {
					cell = append(cell, strings.Repeat(" ", lipgloss.Width(k)+3)+st.FullDesc.Render(l))
				}
			}
			cells = append(cells, cell)
		}
		lines = append(lines, columns(cells, m.width)...)
	}
	return lines
}

// columns lays cells out in as many columns as fit width, filled top to bottom, each column as
// wide as its widest cell.
func columns(cells [][]string, width int) []string {
	const gap = 2
	for cols := len(cells); cols > 1; cols-- {
		rows := (len(cells) + cols - 1) / cols
		widths := make([]int, cols)
		for i, c := range cells {
			for _, l := range c {
				widths[i/rows] = max(widths[i/rows], lipgloss.Width(l))
			}
		}
		total := gap * (cols - 1)
		for _, w := range widths {
			total += w
		}
		if total > width || len(cells) <= (cols-1)*rows {
			continue
		}
		var lines []string
		for r := range rows {
			height := 0
			for c := range cols {
				if i := c*rows + r; i < len(cells) {
					height = max(height, len(cells[i]))
				}
			}
			for h := range height {
				line := ""
				for c := range cols {
					i := c*rows + r
					if i >= len(cells) {
						break
					}
					text := ""
					if h < len(cells[i]) {
						text = cells[i][h]
					}
					if c > 0 {
						line += strings.Repeat(" ", gap)
					}
					line += text + strings.Repeat(" ", widths[c]-lipgloss.Width(text))
				}
				lines = append(lines, strings.TrimRight(line, " "))
			}
		}
		return lines
	}
	var lines []string
	for _, c := range cells {
		lines = append(lines, c...)
	}
	return lines
}
