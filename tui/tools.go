package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"parley/internal/chat"
	"parley/internal/mcp"
	"parley/internal/sanitize"
	"parley/internal/toolloop"
	"parley/tui/toolask"
	"parley/tui/toollist"
)

// This file owns tools on the chat screen (the run's loop is toolloop.Start's): the question
// asked before a call runs (tui/toolask), and /tools, which lists each
// server's tools with what their schemas cost and turns them on and off for the session.

// toolsListTimeout bounds starting the servers and listing their tools for /tools.
const toolsListTimeout = 60 * time.Second

// toolbox is the session's tools (toolloop.Toolbox).
type toolbox = toolloop.Toolbox

// handleToolEvent shows a tool event of the active run r.
func (m *Model) handleToolEvent(r *activeRun, ev chat.Event) {
	id := r.rcpt.ReplyID
	switch ev.Kind {
	case chat.EventToolCall:
		m.showHidden(r)
		m.transcript.AppendToolCall(id, ev.CallIndex, ev.Call)
		r.gotOutput, r.reconnecting = true, nil
	case chat.EventToolAsk:
		m.transcript.SetToolState(id, ev.Call.ID, true, false)
		// esc and ctrl+c stop the turn, as they would without the question; help names esc.
		c := m.keys.Chat
		stop := key.NewBinding(key.WithKeys(append(c.Cancel.Keys(), c.Interrupt.Keys()...)...), key.WithHelp(c.Cancel.Help().Key, "stop"))
		m.overlays.Push(toolask.New(ev.Call, ev.Result, ev.Answer, toolask.DefaultKeys(stop), m.styles.toolask()))
	case chat.EventToolRunning:
		m.transcript.SetToolState(id, ev.Call.ID, false, true)
	case chat.EventToolResult:
		m.transcript.SetToolResult(id, ev.Call, ev.Result)
		m.toolEnded(ev.Call.ID)
	}
}

// answerTool answers the question before a call with c: once or always runs it (always, every
// later call of its tool this session too), refuse does not.
func (m *Model) answerTool(q *toolask.Question, c toolask.Choice) {
	m.dropOverlay(toolask.ID)
	if c == toolask.Always {
		m.tools.Always(mcp.Tool{Server: q.Result.Server, Name: q.Result.Tool})
	}
	q.Answer <- c != toolask.Refuse // buffered: the loop takes it, or has gone
	m.noticeWhileRunning(toolask.Word(c)+" "+sanitize.String(chat.ToolSummary(q.Call)), q.Call.ID)
}

// toolsCommand is /tools: alone it lists the servers and their tools (starting them); with
// "on NAME" or "off NAME" (SERVER or SERVER.TOOL) it turns them on or off for the session.
func (m *Model) toolsCommand(args string) (tea.Cmd, bool) {
	if m.tools == nil {
		m.setNotice("no tool servers are configured: add an [mcp.NAME] table to config.toml (see docs/tools.md)", true)
		return nil, false
	}
	verb, name := firstWord(args)
	switch {
	case verb == "":
		return m.listTools(), true
	case (verb == "on" || verb == "off") && name != "":
		return nil, m.setTools(name, verb == "on")
	}
	m.setNotice("usage: /tools | /tools on NAME | /tools off NAME (NAME: SERVER or SERVER.TOOL)", true)
	return nil, false
}

// setTools turns server or server.tool on or off, saying so.
func (m *Model) setTools(name string, on bool) bool {
	server, tool, single := strings.Cut(name, ".")
	if servers := m.tools.Servers(); !slices.Contains(servers, server) {
		m.setNotice(fmt.Sprintf("no tool server %q: configured are %s", sanitize.String(server), strings.Join(servers, ", ")), true)
		return false
	}
	if single {
		m.tools.SetTool(mcp.Tool{Server: server, Name: tool}, on)
	} else {
		m.tools.SetServer(server, on)
	}
	word := "off"
	if on {
		word = "on"
	}
	m.toolsChanged()
	m.setNotice(sanitize.String(name)+" "+word+" for this session", false)
	return true
}

// toolsListMsg carries /tools' rows.
type toolsListMsg struct{ rows []toollist.Row }

// listTools starts every server and lists its tools with their cost, off the event loop.
func (m *Model) listTools() tea.Cmd {
	box, redact := m.tools, m.client.Redactor()
	m.setNotice("starting the tool servers and listing their tools…", false)
	return fetchItems(toolsListTimeout, func(ctx context.Context) tea.Msg {
		return toolsListMsg{rows: toollist.Rows(ctx, box, redact)}
	})
}

// handleToolsList opens /tools' list.
func (m *Model) handleToolsList(msg toolsListMsg) tea.Cmd {
	m.notice = ""
	m.openOverlay(toollist.New(msg.rows, m.tools, m.keys.Picker.Keys, m.styles.list()))
	m.toolsChanged() // the servers are started now: their tools count
	return nil
}

// toolsRunAgain is what r on reply id asks first when its run called tools: the calls the new
// run may make again. "" when it called none.
func (m *Model) toolsRunAgain(id int64) string {
	calls := m.transcript.ToolCalls(id)
	if len(calls) == 0 {
		return ""
	}
	var names []string
	for _, c := range calls {
		names = append(names, sanitize.String(chat.ToolSummary(c)))
	}
	return "its run called " + strings.Join(names, ", ") + ", which may run again"
}
