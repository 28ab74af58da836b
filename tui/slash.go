package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"parley/tui/sanitize"
)

// This file owns the slash commands typed in the input.

// slashHelp lists the slash commands for /help and the full key list.
const slashHelp = "/new  /sessions  /regen  /model [NAME]  /role [NAME]  /system [TEXT]  /file [PATH]  /title TEXT  /demo …  /help  /quit"

// command runs a slash command typed in the input.
func (m *Model) command(line string) tea.Cmd {
	name, args, _ := strings.Cut(strings.TrimSpace(line), " ")
	args = strings.TrimSpace(args)
	switch name {
	case "/quit", "/exit":
		return m.quitAfterActive()
	case "/help":
		m.help.ShowAll = true
		m.setNotice("commands: "+slashHelp, false)
	case "/model":
		if args == "" {
			return m.listModels()
		}
		m.setModel(args)
	case "/role":
		m.roleCommand(args)
	case "/system":
		m.systemCommand(args)
	case "/file":
		return m.fileCommand(args)
	case "/title":
		return m.titleCommand(args)
	case "/regen":
		return m.regenerateReply(m.transcript.LastReply())
	case "/new":
		return m.switchTo(createSession)
	case "/sessions":
		return m.listSessions()
	case "/demo":
		return m.demoCommand(args)
	default:
		m.setNotice(fmt.Sprintf("unknown command %s; %s", sanitize.String(name), slashHelp), true)
	}
	return nil
}

// setModel is /model NAME: it changes the model new runs use.
func (m *Model) setModel(name string) {
	switch {
	case m.client == nil:
		m.setNotice("no endpoint to change the model of", true)
	default:
		m.client = m.client.WithModel(name)
		m.setNotice("model: "+name+" for the next messages", false)
	}
}

// demoCommand is /demo: it tells the built-in demo endpoint how to misbehave next.
func (m *Model) demoCommand(args string) tea.Cmd {
	if m.demo == nil {
		m.setNotice("/demo works only with the demo endpoint (parley --demo)", true)
		return nil
	}
	d := m.demo
	return func() tea.Msg {
		out, err := d.Command(args)
		if err != nil {
			return noticeMsg{text: err.Error(), err: true}
		}
		return noticeMsg{text: out}
	}
}
