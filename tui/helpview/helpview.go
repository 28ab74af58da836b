// Package helpview is the list of every key and command (?, /help), drawn in the transcript's
// place: its lines, how it scrolls, and the keys that close it. Any key that is none of its
// own closes it and acts as it would, so typing goes on past it.
package helpview

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"parley/internal/wrap"
	"parley/tui/keyhelp"
	"parley/tui/overlay"
)

// ID names the list on the screen's stack of overlays.
const ID = "help"

// wheelLines is how far one step of the mouse wheel scrolls.
const wheelLines = 3

// Keys scroll the list (a line, a page, to either end) and close it.
type Keys struct {
	Up, Down         key.Binding
	PageUp, PageDown key.Binding
	Top, Bottom      key.Binding
	Close            key.Binding
}

// Section is a titled group of bindings in the list: one per focus, because a key can mean one
// thing while typing and another while replies are selected.
type Section struct {
	Title    string
	Bindings []key.Binding
}

// Styles are what the list is drawn with.
type Styles struct {
	Title, Key, Desc, Muted lipgloss.Style
}

// View is the list of every key, scrolled to top.
type View struct {
	sections      []Section
	commands      string
	keys          Keys
	styles        Styles
	width, height int
	top           int
	all           []string // the whole list at width, made when the width changes
}

// New returns the list of sections, then the commands, from its top.
func New(sections []Section, commands string, keys Keys, styles Styles) *View {
	return &View{sections: sections, commands: commands, keys: keys, styles: styles}
}

// ID is the list's name on the stack.
func (*View) ID() string { return ID }

// Update takes every key: its own scroll and close it; any other closes it and is passed on to
// act as it would. The wheel scrolls it.
func (v *View) Update(msg tea.Msg) overlay.Action {
	switch msg := msg.(type) {
	case overlay.Size:
		if msg.Width != v.width || v.all == nil {
			v.width = msg.Width
			v.all = v.build()
		}
		v.height = msg.Height
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			v.top -= wheelLines
		case tea.MouseWheelDown:
			v.top += wheelLines
		}
	case tea.KeyPressMsg:
		k, page := v.keys, max(1, v.rows()-1)
		switch {
		case key.Matches(msg, k.Close):
			return overlay.Close{}
		case key.Matches(msg, k.Up):
			v.top--
		case key.Matches(msg, k.Down):
			v.top++
		case key.Matches(msg, k.PageUp):
			v.top -= page
		case key.Matches(msg, k.PageDown):
			v.top += page
		case key.Matches(msg, k.Top):
			v.top = 0
		case key.Matches(msg, k.Bottom):
			v.top = len(v.lines())
		default:
			return overlay.Pass{}
		}
	default:
		return nil
	}
	// The first line stays where the list can show from.
	v.top = max(0, min(v.top, len(v.lines())-v.rows()))
	return nil
}

// rows is how many lines of the list its place holds: all of it but the line that says where
// the list is, when it does not fit whole.
func (v *View) rows() int {
	rows := v.height
	if len(v.lines()) > rows {
		rows--
	}
	return max(rows, 1)
}

// lines is the whole list.
func (v *View) lines() []string { return v.all }

// build makes the whole list: every key by section, then the slash commands.
func (v *View) build() []string {
	lines := v.keyLines()
	for _, l := range wrap.Lines("commands: "+v.commands, v.width) {
		lines = append(lines, v.styles.Muted.Render(l))
	}
	return lines
}

// View draws the list, height lines, from its top; when it does not fit, the last line says
// which lines show (the help line names the keys that scroll).
func (v *View) View(width, height int) []string {
	all := v.lines()
	rows := v.rows()
	top := max(0, min(v.top, len(all)-rows))
	lines := append([]string(nil), all[top:min(len(all), top+rows)]...)
	if len(all) > height {
		where := fmt.Sprintf("lines %d–%d of %d", top+1, top+len(lines), len(all))
		for len(lines) < height-1 {
			lines = append(lines, "")
		}
		lines = append(lines, v.styles.Muted.Render(ansi.Truncate(where, width, "…")))
	}
	for len(lines) < height {
		lines = append(lines, "")
	}
	return lines
}

// Help is the list's keys: they scroll it and close it.
func (v *View) Help() []key.Binding {
	k := v.keys
	return []key.Binding{keyhelp.Relabel(keyhelp.Joined(k.Up, k.Down, k.PageUp, k.PageDown), "scroll"), k.Close}
}

// keyLines lists every key by section, "key  what it does", each section in as many columns as
// fit the width; an entry wider than the width wraps its description, never cuts it.
func (v *View) keyLines() []string {
	st := v.styles
	var lines []string
	for _, sec := range v.sections {
		lines = append(lines, st.Title.Render(sec.Title))
		var cells [][]string // each entry's lines, unpadded
		for _, b := range sec.Bindings {
			k, d := b.Help().Key, b.Help().Desc
			room := max(v.width-lipgloss.Width(k)-3, 8)
			var cell []string
			for i, l := range wrap.Lines(d, room) {
				if i == 0 {
					cell = append(cell, "  "+st.Key.Render(k)+" "+st.Desc.Render(l))
				} else {
					cell = append(cell, strings.Repeat(" ", lipgloss.Width(k)+3)+st.Desc.Render(l))
				}
			}
			cells = append(cells, cell)
		}
		lines = append(lines, columns(cells, v.width)...)
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
