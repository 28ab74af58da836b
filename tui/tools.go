package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/agent"
	"parley/history"
	"parley/internal/chat"
	"parley/internal/mcp"
	"parley/internal/sanitize"
	"parley/internal/toolloop"
)

// This file owns tools on the chat screen: the run's loop when tools are on, the question
// asked before a call runs (y once, a always, n refuse, esc stop), and /tools, which lists each
// server's tools with what their schemas cost and turns them on and off for the session.

// toolsListTimeout bounds starting the servers and listing their tools for /tools.
const toolsListTimeout = 60 * time.Second

// toolAsk is a call waiting for the operator's answer.
type toolAsk struct {
	call   chat.ToolCall
	res    chat.ToolResult // names the server and tool
	answer chan<- bool
}

// runModel is the model call of a run: the client through the spend guard (with the tools
// offered when they are on).
func runModel(spend *agent.SpendGuard, client *agent.Client, sessionID string) toolloop.Model {
	return func(ctx context.Context, msgs []chat.Message) <-chan chat.Event {
		return spend.Stream(ctx, client, sessionID, msgs)
	}
}

// runEvents are the events of run rcpt sending msgs: through the tool loop when tools are
// on, its servers started here (those that cannot be are returned, each error naming its
// server), else one model call. It runs in a command.
func runEvents(ctx context.Context, box *toolbox, db *history.DB, spend *agent.SpendGuard, client *agent.Client,
	rcpt history.Receipt, sessionID string, msgs []chat.Message, progress history.Progress) (<-chan chat.Event, []string) {
	if box == nil || !box.Any() {
		return spend.Stream(ctx, client, sessionID, msgs), nil
	}
	_, entries, errs := box.Offered(ctx)
	var said []string
	for _, err := range errs {
		said = append(said, err.Error())
	}
	loop := toolloop.Loop{Model: runModel(spend, client.WithTools(entries), sessionID), Host: box.Host(), Store: db,
		Gate: box.Gate, RunID: rcpt.RunID, Steps: progress.Steps, Seam: progress.Seam}
	return loop.Run(ctx, msgs), said
}

// toolbox is the session's tools (toolloop.Toolbox).
type toolbox = toolloop.Toolbox

// handleToolEvent shows a tool event of the active run r.
func (m *Model) handleToolEvent(r *activeRun, ev chat.Event) {
	id := r.rcpt.ReplyID
	switch ev.Kind {
	case chat.EventToolCall:
		m.showHidden(r)
		m.transcript.AppendToolCall(id, ev.CallIndex, ev.Call)
		r.gotOutput, r.reconnecting = true, ""
	case chat.EventToolAsk:
		m.transcript.SetToolState(id, ev.Call.ID, true, false)
		m.asking = &toolAsk{call: ev.Call, res: ev.Result, answer: ev.Answer}
		m.setNotice(m.askQuestion(), true)
	case chat.EventToolRunning:
		m.transcript.SetToolState(id, ev.Call.ID, false, true)
	case chat.EventToolResult:
		m.transcript.SetToolResult(id, ev.Call, ev.Result)
		m.toolEnded(ev.Call.ID)
	}
}

// askQuestion is the question of the call waiting for an answer.
func (m *Model) askQuestion() string {
	a := m.asking
	return fmt.Sprintf("run %s.%s %s?  y once · a always for this tool · n refuse · %s stop",
		sanitize.String(a.res.Server), sanitize.String(a.res.Tool), sanitize.String(a.call.Arguments), m.keys.Chat.Cancel.Help().Key)
}

// toolAskKey answers the call waiting for an answer with a key: y runs it, a runs it and every
// later call of its tool this session, n refuses it. Esc (the Cancel key) stops the turn
// through the usual path. It reports whether the key answered.
func (m *Model) toolAskKey(msg tea.KeyPressMsg) bool {
	a := m.asking
	var run bool
	switch msg.String() {
	case "y":
		run = true
	case "a":
		m.tools.Always(mcp.Tool{Server: a.res.Server, Name: a.res.Tool})
		run = true
	case "n":
	default:
		return false
	}
	a.answer <- run // buffered: the loop takes it, or has gone
	m.asking = nil
	word := "refused"
	if run {
		word = "running"
	}
	m.noticeWhileRunning(word+" "+sanitize.String(chat.ToolSummary(a.call)), a.call.ID)
	return true
}

// toolsCommand is /tools: alone it lists the servers and their tools (starting them); with
// "on NAME" or "off NAME" (SERVER or SERVER.TOOL) it turns them on or off for the session.
func (m *Model) toolsCommand(args string) (tea.Cmd, bool) {
	if m.tools == nil {
		m.setNotice("no tool servers are configured: add an [mcp.NAME] table to config.toml (see README \"Tools\")", true)
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

// toolRow is one row of /tools: a server, or one of its tools.
type toolRow struct {
	server string
	tool   *mcp.Tool
	// tokens is what the schemas cost in every request (the tool's, or all the server's).
	tokens, count int
	err           string
}

// toolsListMsg carries /tools' rows.
type toolsListMsg struct{ rows []toolRow }

// listTools starts every server and lists its tools with their cost, off the event loop.
func (m *Model) listTools() tea.Cmd {
	box := m.tools
	m.setNotice("starting the tool servers and listing their tools…", false)
	return fetchItems(toolsListTimeout, func(ctx context.Context) tea.Msg {
		return toolsListMsg{rows: toolRows(ctx, box)}
	})
}

// toolRows lists each server of box, then its tools, with what each schema costs in tokens.
func toolRows(ctx context.Context, box *toolbox) []toolRow {
	var rows []toolRow
	for _, server := range box.Servers() {
		tools, err := box.Host().Tools(ctx, server)
		if err != nil {
			rows = append(rows, toolRow{server: server, err: err.Error()})
			continue
		}
		head := len(rows)
		rows = append(rows, toolRow{server: server, count: len(tools)})
		for i := range tools {
			n := agent.EstimateText(string(tools[i].Entry))
			rows[head].tokens += n
			rows = append(rows, toolRow{server: server, tool: &tools[i], tokens: n})
		}
	}
	return rows
}

// handleToolsList opens /tools' list.
func (m *Model) handleToolsList(msg toolsListMsg) tea.Cmd {
	m.notice = ""
	m.toolList = filterList[toolRow]{items: msg.rows, kept: msg.rows}
	m.openList(focusTools)
	m.toolsChanged() // the servers are started now: their tools count
	return nil
}

// toolsKey handles a key while /tools' list is open: arrows move, enter turns the row's
// server or tool on or off, esc closes, typing narrows.
func (m *Model) toolsKey(msg tea.KeyPressMsg) tea.Cmd {
	l := &m.toolList
	switch l.key(msg, m.keys.Picker, len(l.kept), max(1, m.transcript.Height()-3)) {
	case listChose:
		if len(l.kept) == 0 {
			return nil
		}
		r := l.kept[l.cursor]
		switch {
		case r.err != "":
		case r.tool == nil:
			m.tools.SetServer(r.server, !m.tools.ServerOn(r.server))
		default:
			m.tools.SetTool(*r.tool, !m.tools.On(*r.tool))
		}
	case listClosed:
		m.toolList = filterList[toolRow]{}
		m.closeList()
		m.toolsChanged() // what was turned on or off counts from the next send
	case listTyped:
		q := strings.ToLower(l.query)
		l.narrow(func(r toolRow) bool {
			return strings.Contains(r.server, q) || r.tool != nil && strings.Contains(strings.ToLower(r.tool.Name), q)
		})
	}
	return nil
}

// toolsView draws /tools' list in the transcript's place: height lines.
func (m *Model) toolsView(height int) []string {
	st := m.styles
	look := listLook{title: "Tools", choose: "on/off", typing: "type to narrow", query: "filter", none: "no tool's name contains "}
	return m.toolList.view(st, m.keys.Picker, m.width, height, look, func(r toolRow) string {
		switch {
		case r.err != "":
			return sanitize.String(r.server) + st.Muted.Render("  "+sanitize.String(r.err))
		case r.tool == nil:
			on := "off"
			if m.tools.ServerOn(r.server) {
				on = "on"
			}
			return fmt.Sprintf("%s  %s", sanitize.String(r.server), st.Muted.Render(fmt.Sprintf("%s · %d tools · %s tok in all", on, r.count, chat.FormatTokens(r.tokens))))
		}
		box := "[ ]"
		if m.tools.On(*r.tool) {
			box = "[x]"
		}
		return fmt.Sprintf("  %s %s  %s", box, sanitize.String(r.tool.Name), st.Muted.Render(chat.FormatTokens(r.tokens)+" tok"))
	})
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
