package tui

import (
	"slices"
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"

	"parley/internal/chat"
	"parley/internal/sanitize"
	"parley/tui/slashmenu"
)

// This file owns the slash commands typed in the input: one table, from which the help line,
// the check of whether a line is a command and the dispatch are all read.

// slashCommand is a slash command.
type slashCommand struct {
	// names are the command's names: help shows the first, the others are its aliases.
	names []string
	// args is what the command takes, as help shows it after the name: "[NAME]" when it may
	// be left out, "" when it takes nothing.
	args string
	// about says in a few words what the command does, as the menu shows beside it.
	about string
	// run runs the command with its arguments; pending is the action waiting for its key
	// again. done is false when the command failed or asks to be confirmed: the line then
	// stays in the input.
	run func(m *Model, args string, pending confirm) (cmd tea.Cmd, done bool)
}

// slashCommands are the slash commands, in the order help lists them. A line whose first word
// is not one of their names is a message, even when it starts with a slash ("/etc/hosts: what
// is it for?"), unless that word is shaped like a command (unknownSlash): a typo is never
// sent. The table is filled in init: /help's command reads it.
var slashCommands []slashCommand

func init() {
	slashCommands = []slashCommand{
		{names: []string{"/new"}, about: "start a new session", run: func(m *Model, _ string, pending confirm) (tea.Cmd, bool) {
			c := confirm{action: "new"}
			if q := m.leaveQuestion(c, pending, m.keys.Input.Send.Help().Key, "opens a new session"); q != "" {
				m.overlays.ask(c, q, m.styles, &m.noticeLine)
				return nil, false
			}
			return m.switchTo(newSession), true
		}},
		{names: []string{"/sessions"}, about: "open, rename or delete a session", run: func(m *Model, _ string, _ confirm) (tea.Cmd, bool) {
			return m.listSessions(), true
		}},
		{names: []string{"/regen"}, about: "write the last reply again", run: func(m *Model, _ string, _ confirm) (tea.Cmd, bool) {
			cmd := m.regenerateReply(m.transcript.LastReply())
			return cmd, cmd != nil
		}},
		{names: []string{"/fork"}, about: "a new session that goes on from here", run: func(m *Model, _ string, _ confirm) (tea.Cmd, bool) {
			cmd := m.forkAt(0)
			return cmd, cmd != nil
		}},
		{names: []string{"/copy"}, about: "copy the last reply", run: func(m *Model, _ string, _ confirm) (tea.Cmd, bool) {
			if m.transcript.LastReply() == 0 {
				m.setNotice("there is no reply to copy yet", true)
				return nil, false
			}
			return m.copyText(&m.noticeLine, m.clock, m.transcript.Text(m.transcript.LastReply()), "the last reply"), true
		}},
		{names: []string{"/model"}, about: "choose the model", args: "[NAME]", run: func(m *Model, args string, _ confirm) (tea.Cmd, bool) {
			if args == "" {
				return m.listModels(0), true
			}
			return nil, m.setModel(args)
		}},
		{names: []string{"/role"}, about: "speak to a role from config.toml", args: "[NAME|none]", run: func(m *Model, args string, _ confirm) (tea.Cmd, bool) {
			return nil, m.roleCommand(args)
		}},
		{names: []string{"/system"}, about: "set or turn off the system prompt", args: "[TEXT|off]", run: func(m *Model, args string, _ confirm) (tea.Cmd, bool) {
			m.systemCommand(args)
			return nil, true
		}},
		{names: []string{"/compact"}, about: "leave older messages out of what is sent", args: "[N]", run: func(m *Model, args string, pending confirm) (tea.Cmd, bool) {
			return m.compactCommand(args, pending)
		}},
		{names: []string{"/file"}, about: "attach a text file or an image", args: "[PATH]", run: func(m *Model, args string, _ confirm) (tea.Cmd, bool) {
			return m.fileCommand(args, "/file "+args), true
		}},
		{names: []string{"/title"}, about: "name this session", args: "TEXT", run: func(m *Model, args string, _ confirm) (tea.Cmd, bool) {
			return m.titleCommand(args)
		}},
		{names: []string{"/tools"}, about: "list tools, or turn one on or off", args: "[on|off NAME]", run: func(m *Model, args string, _ confirm) (tea.Cmd, bool) {
			return m.toolsCommand(args)
		}},
		{names: []string{"/demo"}, about: "tell the demo endpoint how to misbehave", args: "ARGS", run: func(m *Model, args string, _ confirm) (tea.Cmd, bool) {
			if m.demo == nil {
				m.setNotice("/demo works only with the demo endpoint (parley --demo)", true)
				return nil, false
			}
			return demoCommand(m.demo, args), true
		}},
		{names: []string{"/help"}, about: "every key and command", run: func(m *Model, _ string, _ confirm) (tea.Cmd, bool) {
			m.overlays.openHelp(m.keys, m.styles, m.help.Styles)
			m.setNotice("commands: "+slashHelp(), false)
			return nil, true
		}},
		{names: []string{"/quit", "/exit"}, about: "leave parley", run: func(m *Model, _ string, pending confirm) (tea.Cmd, bool) {
			if q := m.leaveQuestion(quitting, pending, m.keys.Input.Send.Help().Key, "quits"); q != "" {
				m.overlays.ask(quitting, q, m.styles, &m.noticeLine)
				return nil, false
			}
			return m.quitAfterActive(), true
		}},
	}
}

// slashHelp lists the slash commands for /help and the full key list.
func slashHelp() string {
	var parts []string
	for _, c := range slashCommands {
		parts = append(parts, strings.TrimSpace(c.names[0]+" "+c.args))
	}
	return strings.Join(parts, "  ") + "  (//text sends /text)"
}

// menuCommands are the slash commands as the menu above the input offers them.
func menuCommands() []slashmenu.Command {
	cs := make([]slashmenu.Command, len(slashCommands))
	for i, c := range slashCommands {
		cs[i] = slashmenu.Command{Names: c.names, Args: c.args, About: c.about}
	}
	return cs
}

// findSlash returns the command a line names, in any case (/Model is /model), and its
// arguments; ok is false when the line is a message, or names no command (unknownSlash).
func findSlash(line string) (c slashCommand, args string, ok bool) {
	name, args := firstWord(line)
	if c, ok := slashNamed(name); ok {
		return c, args, true
	}
	return slashCommand{}, "", false
}

// firstWord splits a line into its first word and the rest, both trimmed.
func firstWord(line string) (word, rest string) {
	line = strings.TrimSpace(line)
	i := strings.IndexFunc(line, unicode.IsSpace)
	if i < 0 {
		i = len(line)
	}
	return line[:i], strings.TrimSpace(line[i:])
}

// slashNamed returns the command whose name (or alias) is name, in any case.
func slashNamed(name string) (slashCommand, bool) {
	for _, c := range slashCommands {
		if slices.ContainsFunc(c.names, func(n string) bool { return strings.EqualFold(n, name) }) {
			return c, true
		}
	}
	return slashCommand{}, false
}

// commandShaped reports whether word looks like a slash command: a slash and a name of
// letters, digits, - and _ (/sesions, /NEW), not a path (/etc/hosts) nor "//" text.
func commandShaped(word string) bool {
	name, ok := strings.CutPrefix(word, "/")
	if !ok || name == "" || !unicode.IsLetter(rune(name[0])) {
		return false
	}
	return !strings.ContainsFunc(name, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_'
	})
}

// unknownSlash returns what is said of a line that starts like a command none of parley's is:
// a mistyped command is never sent, and // sends it as text. ok is false for any other line.
func unknownSlash(line string) (notice string, ok bool) {
	word, _ := firstWord(line)
	if !commandShaped(word) {
		return "", false
	}
	if _, known := slashNamed(word); known {
		return "", false
	}
	var names []string
	for _, c := range slashCommands {
		names = append(names, c.names...)
	}
	hint := "/help lists the commands"
	if near, found := chat.Nearest(strings.ToLower(word), names); found {
		hint = "did you mean " + near + "?"
	}
	return "unknown command " + sanitize.String(word) + " — " + hint + " (// sends it as text)", true
}

// runSlash runs command c on a copy of the model, and takes the copy back. A handler is called
// through the table, so the compiler cannot tell that the model it is handed does not outlive
// the call: handed m, every Update's model would be moved to the heap, 22 KB more a key.
func (m *Model) runSlash(c slashCommand, args string, pending confirm) (tea.Cmd, bool) {
	run := new(Model)
	*run = *m
	cmd, done := c.run(run, args, pending)
	*m = *run
	return cmd, done
}

// unescapeSlash is the message a line sends: a leading "//" stands for one slash, so that
// "//help" sends "/help".
func unescapeSlash(line string) string {
	if strings.HasPrefix(line, "//") {
		return line[1:]
	}
	return line
}

// setModel is /model: it names the model new runs use, or with a name changes it. It reports
// whether it did what was asked.
func (m *Model) setModel(name string) bool {
	switch {
	case m.client == nil:
		m.setNotice("no endpoint to change the model of", true)
		return false
	default:
		m.client = m.client.WithModel(name)
		m.setNotice("model: "+name+" for the next messages", false)
	}
	return true
}

// demoCommand is /demo: it tells the built-in demo endpoint how to misbehave next. When the
// demo refuses the line, the line comes back to the input (if nothing was typed since).
func demoCommand(d Demo, args string) tea.Cmd {
	return func() tea.Msg {
		out, err := d.Command(args)
		if err != nil {
			return noticeMsg{text: err.Error(), err: true, giveBack: strings.TrimSpace("/demo " + args)}
		}
		return noticeMsg{text: out}
	}
}
