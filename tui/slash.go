package tui

import (
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
)

// This file owns the slash commands typed in the input.

// slashHelp lists the slash commands for /help and the full key list.
const slashHelp = "/new  /sessions  /regen  /model [NAME]  /role [NAME]  /system [TEXT]  /file [PATH]  /title TEXT  /demo ARGS  /help  /quit  (//text sends /text)"

// commandNames are the slash commands. A line whose first word is not one of them is a
// message, even when it starts with a slash ("/etc/hosts: what is it for?").
var commandNames = map[string]bool{
	"/quit": true, "/exit": true, "/help": true, "/model": true, "/regen": true,
	"/new": true, "/sessions": true, "/demo": true, "/role": true, "/system": true, "/file": true,
	"/title": true,
}

// slashCommand returns the command a line names and its arguments; ok is false when the line
// is a message.
func slashCommand(line string) (name, args string, ok bool) {
	line = strings.TrimSpace(line)
	i := strings.IndexFunc(line, unicode.IsSpace)
	if i < 0 {
		i = len(line)
	}
	name, args = line[:i], strings.TrimSpace(line[i:])
	return name, args, commandNames[name]
}

// unescapeSlash is the message a line sends: a leading "//" stands for one slash, so that
// "//help" sends "/help".
func unescapeSlash(line string) string {
	if strings.HasPrefix(line, "//") {
		return line[1:]
	}
	return line
}

// command runs slash command name with its arguments. done is false when the command failed
// or asks to be confirmed: the line then stays in the input.
func (m *Model) command(name, args string, pending confirm) (cmd tea.Cmd, done bool) {
	switch name {
	case "/quit", "/exit":
		return m.quitAfterActive(), true
	case "/help":
		m.help.ShowAll = true
		m.setNotice("commands: "+slashHelp, false)
	case "/model":
		if args == "" {
			return m.listModels(), true
		}
		return nil, m.setModel(args)
	case "/role":
		m.roleCommand(args)
	case "/system":
		m.systemCommand(args)
	case "/file":
		return m.fileCommand(args), true
	case "/title":
		return m.titleCommand(args), true
	case "/regen":
		cmd = m.regenerateReply(m.transcript.LastReply())
		return cmd, cmd != nil
	case "/new":
		ask := confirm{action: "new"}
		if m.busy() && pending != ask {
			m.confirm = ask
			m.setNotice("a reply is being written: enter again stops it and opens a new session", true)
			return nil, false
		}
		return m.switchTo(newSession), true
	case "/sessions":
		return m.listSessions(), true
	case "/demo":
		if m.demo == nil {
			m.setNotice("/demo works only with the demo endpoint (parley --demo)", true)
			return nil, false
		}
		return m.demoCommand(args), true
	}
	return nil, true
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
func (m *Model) demoCommand(args string) tea.Cmd {
	d := m.demo
	return func() tea.Msg {
		out, err := d.Command(args)
		if err != nil {
			return noticeMsg{text: err.Error(), err: true, giveBack: strings.TrimSpace("/demo " + args)}
		}
		return noticeMsg{text: out}
	}
}
