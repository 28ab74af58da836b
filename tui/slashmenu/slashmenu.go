// Package slashmenu is the menu of slash commands above the input while a line that starts
// with / is typed: the commands whose names start with the line, one of them chosen, tab (or
// enter on a name typed in part) putting it in the input. It stands on the screen's stack of
// overlays without taking the input's place: keys that are not its own go on to the input.
package slashmenu

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"parley/tui/keyhelp"
	"parley/tui/overlay"
)

// ID names the menu on the screen's stack of overlays.
const ID = "slashmenu"

// Width is the longest line the menu looks at: no command name is longer.
const Width = 16

// Command is one slash command as the menu offers it.
type Command struct {
	// Names are the command's names: the menu shows and completes the first, the others are
	// its aliases.
	Names []string
	// Args is what the command takes, as help shows it after the name; "" when nothing.
	Args string
	// About says in a few words what the command does, beside it in the menu.
	About string
}

// Rows is how many commands the menu lists at once: the rest scroll into view as the arrows
// reach them, so the menu never pushes the conversation off a short screen.
const Rows = 8

// Keys choose a command (Up, Down), put it in the input (Complete, and Send on a name typed in
// part); Close is the key the screen closes the menu with, named in its hint.
type Keys struct {
	Up, Down, Complete, Send, Close key.Binding
}

// Styles are what the menu is drawn with.
type Styles struct {
	Chosen, Muted lipgloss.Style
}

// Complete puts Text, the command chosen, in the input.
type Complete struct{ Text string }

// Through is a key that is not the menu's: it acts as it would without the menu, which stays.
type Through struct{}

// Menu is the menu for the line typed.
type Menu struct {
	commands []Command
	keys     Keys
	styles   Styles
	line     string
	items    []Command
	// cursor is the index, among items, of the command chosen.
	cursor int
	// closed is set when the screen closed the menu; it stays closed until it is taken off
	// the stack, once the line no longer starts with a slash.
	closed bool
}

// New returns the menu of commands, in the order it lists them.
func New(commands []Command, styles Styles) *Menu {
	return &Menu{commands: commands, styles: styles}
}

// SetKeys gives the menu the screen's bindings as they stand: a binding the screen has turned
// off (enter while it sends a retry) is none of the menu's either.
func (m *Menu) SetKeys(k Keys) { m.keys = k }

// Offers reports whether line is one the menu may show for: a single slash and no space.
func Offers(line string) bool {
	return strings.HasPrefix(line, "/") && !strings.HasPrefix(line, "//") && !strings.ContainsAny(line, " \t")
}

// SetLine narrows the menu to the commands line is the start of ("" for none), and reports
// whether it shows.
func (m *Menu) SetLine(line string) bool {
	m.line, m.items = line, nil
	if Offers(line) {
		for _, c := range m.commands {
			if strings.HasPrefix(c.Names[0], strings.ToLower(line)) {
				m.items = append(m.items, c)
			}
		}
	}
	m.cursor = min(m.cursor, max(len(m.items)-1, 0))
	return m.Shows()
}

// Shows reports whether the menu shows: it has commands for the line and was not closed.
func (m *Menu) Shows() bool { return !m.closed && len(m.items) > 0 }

// Close closes the menu, and reports whether it showed.
func (m *Menu) Close() bool {
	shown := m.Shows()
	m.closed, m.cursor = true, 0
	return shown
}

// ID is the menu's name on the stack.
func (*Menu) ID() string { return ID }

// Update takes the keys of a menu that shows: the arrows choose, tab completes, and enter
// completes a name typed in part (a name typed whole goes on, to run). Any other key is
// Through.
func (m *Menu) Update(msg tea.Msg) overlay.Action {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || !m.Shows() {
		return Through{}
	}
	switch {
	case key.Matches(k, m.keys.Up):
		m.cursor = (m.cursor + len(m.items) - 1) % len(m.items)
	case key.Matches(k, m.keys.Down):
		m.cursor = (m.cursor + 1) % len(m.items)
	case key.Matches(k, m.keys.Complete):
		return m.complete()
	case key.Matches(k, m.keys.Send):
		if m.named(m.line) {
			return Through{}
		}
		return m.complete()
	default:
		return Through{}
	}
	return nil
}

// complete is the chosen command's name for the input, with a space when it takes arguments.
func (m *Menu) complete() Complete {
	c := m.items[m.cursor]
	m.cursor = 0
	if c.Args != "" {
		return Complete{Text: c.Names[0] + " "}
	}
	return Complete{Text: c.Names[0]}
}

// named reports whether line is a command's name or alias, in any case.
func (m *Menu) named(line string) bool {
	for _, c := range m.commands {
		for _, n := range c.Names {
			if strings.EqualFold(n, line) {
				return true
			}
		}
	}
	return false
}

// View draws the menu: the commands the line matches, one a line with what each does, the
// chosen one marked, at most Rows of them around it, and the keys, each line cut to width.
// None when it does not show.
func (m *Menu) View(width, _ int) []string {
	if !m.Shows() {
		return nil
	}
	st, k := m.styles, m.keys
	cut := lipgloss.NewStyle().MaxWidth(max(width, 1))
	nameWidth := 0
	for _, c := range m.items {
		nameWidth = max(nameWidth, lipgloss.Width(usage(c)))
	}
	first := min(max(m.cursor-Rows+1, 0), max(len(m.items)-Rows, 0))
	last := min(first+Rows, len(m.items))
	lines := make([]string, 0, last-first+1)
	for i := first; i < last; i++ {
		c := m.items[i]
		name := usage(c) + strings.Repeat(" ", nameWidth-lipgloss.Width(usage(c)))
		var line string
		if i == m.cursor {
			line = st.Chosen.Render("› "+name) + "  " + st.Muted.Render(c.About)
		} else {
			line = st.Muted.Render("  " + name + "  " + c.About)
		}
		lines = append(lines, cut.Render(line))
	}
	hint := keyhelp.Hint(keyhelp.Joined(k.Up, k.Down), keyhelp.Relabel(k.Complete, "completes"), keyhelp.Relabel(k.Close, "closes"))
	if len(m.items) > Rows {
		hint = fmt.Sprintf("%d of %d · %s", m.cursor+1, len(m.items), hint)
	}
	return append(lines, cut.Render(st.Muted.Render("  "+hint)))
}

// usage is a command's name and what it takes, as the menu lists it.
func usage(c Command) string { return strings.TrimSpace(c.Names[0] + " " + c.Args) }

// Help is nil: the screen's help line, which names the menu's keys while it shows, stays.
func (*Menu) Help() []key.Binding { return nil }
