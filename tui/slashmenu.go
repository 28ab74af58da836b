package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"parley/tui/keyhelp"
)

// This file owns the menu of slash commands shown above the input while a line that starts
// with / is typed: the commands whose names start with what was typed, one of them chosen,
// tab (or enter on a name typed in part) putting it in the input, esc closing it.

// slashMenuWidth is the longest line the menu looks at: no command name is longer.
const slashMenuWidth = 16

// slashMenu is the state of the menu of slash commands.
type slashMenu struct {
	// cursor is the index, among the commands the line matches, of the one chosen.
	cursor int
	// closed is set when esc closed the menu; it opens again once the line no longer starts
	// with a slash.
	closed bool
}

// menuItems returns the commands the input's line is the start of, when the menu shows: the
// input has the focus and holds one short line starting with a single slash and no space,
// and esc has not closed the menu. A line recalled from the history is walked, not completed.
func (m *Model) menuItems() []slashCommand {
	line, ok := m.input.Short(slashMenuWidth)
	if !ok || m.focus != focusInput || m.menu.closed || m.recall.at >= 0 ||
		!strings.HasPrefix(line, "/") || strings.HasPrefix(line, "//") || strings.ContainsFunc(line, isSpace) {
		return nil
	}
	var items []slashCommand
	for _, c := range slashCommands {
		if strings.HasPrefix(c.names[0], strings.ToLower(line)) {
			items = append(items, c)
		}
	}
	return items
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' }

// updateMenu opens the menu again once the line is emptied or no longer starts with a slash,
// and enables its keys while it shows; it reports whether it shows.
func (m *Model) updateMenu() bool {
	if line, ok := m.input.Short(slashMenuWidth); m.input.Empty() || (ok && !strings.HasPrefix(line, "/")) {
		m.menu.closed = false
	}
	open := len(m.menuItems()) > 0
	in := &m.keys.Input
	in.Complete.SetEnabled(open)
	in.MenuUp.SetEnabled(open)
	in.MenuDown.SetEnabled(open)
	return open
}

// menuKey handles a key while the menu shows, and reports whether it did: the arrows choose,
// tab completes, and enter completes a name typed in part (a name typed whole runs).
func (m *Model) menuKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	items := m.menuItems()
	if len(items) == 0 {
		return nil, false
	}
	in := m.keys.Input
	m.menu.cursor = min(m.menu.cursor, len(items)-1)
	switch {
	case key.Matches(msg, in.MenuUp):
		m.menu.cursor = (m.menu.cursor + len(items) - 1) % len(items)
	case key.Matches(msg, in.MenuDown):
		m.menu.cursor = (m.menu.cursor + 1) % len(items)
	case key.Matches(msg, in.Complete):
		m.complete(items[m.menu.cursor])
	case key.Matches(msg, in.Send):
		if line, _ := m.input.Short(slashMenuWidth); isCommandName(line) {
			return nil, false
		}
		m.complete(items[m.menu.cursor])
	default:
		return nil, false
	}
	return nil, true
}

// isCommandName reports whether line is a command's name or alias, in any case.
func isCommandName(line string) bool {
	_, ok := slashNamed(line)
	return ok
}

// complete puts command c's name in the input, with a space when it takes arguments.
func (m *Model) complete(c slashCommand) {
	name := c.names[0]
	if c.args != "" {
		name += " "
	}
	m.input.SetValue(name)
	m.menu.cursor = 0
}

// closeMenu is esc on the menu, and reports whether it was open.
func (m *Model) closeMenu() bool {
	if len(m.menuItems()) == 0 {
		return false
	}
	m.menu = slashMenu{closed: true}
	return true
}

// menuView draws the menu: the commands the line matches, the chosen one marked, and the keys,
// wrapped to the width. None when the menu does not show.
func (m *Model) menuView() []string {
	items := m.menuItems()
	if len(items) == 0 {
		return nil
	}
	st := m.styles
	cursor := min(m.menu.cursor, len(items)-1)
	cells := make([]string, 0, len(items)+1)
	for i, c := range items {
		name := strings.TrimSpace(c.names[0] + " " + c.args)
		if i == cursor {
			cells = append(cells, st.PickerFocus.Render("› "+name))
		} else {
			cells = append(cells, st.Muted.Render("  "+name))
		}
	}
	in := m.keys.Input
	cells = append(cells, st.Muted.Render("· "+keyhelp.Hint(keyhelp.Joined(in.MenuUp, in.MenuDown), keyhelp.Relabel(in.Complete, "completes"),
		keyhelp.Relabel(m.keys.Chat.Cancel, "closes"))))
	var lines []string
	line := ""
	for _, c := range cells {
		switch {
		case line == "":
			line = c
		case lipgloss.Width(line)+1+lipgloss.Width(c) <= m.width:
			line += " " + c
		default:
			lines = append(lines, line)
			line = c
		}
	}
	return append(lines, line)
}
