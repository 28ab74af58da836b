package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/mcp"
	"parley/internal/sanitize"
	"parley/internal/toolloop"
	"parley/tui/modellist"
	"parley/tui/overlay"
	"parley/tui/picker"
	"parley/tui/question"
	"parley/tui/slashmenu"
	"parley/tui/toolask"
	"parley/tui/toollist"
	"parley/tui/transcript"
	"parley/tui/versions"
)

// This file owns what stands on the screen's stack of overlays: putting one in front and
// taking it off, and doing what the one in front asks (overlayAction); then the lists and the
// question it opens, each in a part of its own.

// openOverlay puts o in front (layout gives it the transcript's place): the input waits
// behind it.
func (m *Model) openOverlay(o overlay.Overlay) {
	m.overlays.Push(o)
	m.input.Blur()
}

// dropOverlay takes overlay id off the stack; with none left the input takes text again.
func (m *Model) dropOverlay(id string) {
	m.overlays.Remove(id)
	if m.overlays.blocking() == nil && m.focus == focusInput {
		m.input.Focus()
	}
}

// stack is the screen's stack of overlays, and which of them plays what part on the screen.
type stack struct{ overlay.Stack }

// blocking is the overlay in front that takes keys ahead of the input; nil when there is
// none. The slash menu stands over the input without blocking it: the input's keys ask it.
func (s *stack) blocking() overlay.Overlay {
	if o := s.Front(); o != nil && o.ID() != slashmenu.ID {
		return o
	}
	return nil
}

// listShown is the overlay drawn in the transcript's place (a list), nearest the front; nil
// when the transcript shows.
func (s *stack) listShown() overlay.Overlay {
	return s.Top(func(o overlay.Overlay) bool {
		switch o.(type) {
		case *toolask.Question, *question.Question, *slashmenu.Menu:
			return false
		}
		return true
	})
}

// overlayAction does what the overlay in front asked for; pending is the action a question
// just confirmed, if any.
func (m *Model) overlayAction(a overlay.Action, pending confirm) tea.Cmd {
	switch a := a.(type) {
	case overlay.Close:
		id := m.overlays.Front().ID()
		m.dropOverlay(id)
		if id == toollist.ID {
			m.budget.toolsChanged(m.tools, &m.input, m.transcript, m.keys.Transcript.Pin.Help().Key) // what was turned on or off counts from the next send
		}
	case picker.Open:
		return m.openChosen(a, pending)
	case picker.Delete:
		return m.deleteSession(a.Session, pending)
	case picker.Say:
		m.setNotice(a.Text, a.Err)
	case tea.Cmd:
		return a
	case modellist.Chosen:
		m.dropOverlay(modellist.ID)
		if a.Compare != 0 {
			return m.compareOn(a.Compare, a.Choice)
		}
		m.setModel(a.Choice.Model)
	case toolask.Answered:
		m.answerTool(m.overlays.Front().(*toolask.Question), a.Choice)
	case versions.Copy:
		return m.copyText(&m.noticeLine, m.clock, a.Text, a.What)
	case versions.Restore:
		return m.restore(a.ID, a.Number)
	case toolask.Stopped:
		cmd, _ := m.stop()
		return cmd
	}
	return nil
}

// This part opens the session picker (/sessions, tui/picker) and does what it asks: open a
// session (asked first while a reply is being written), delete one (asked first).

// listSessions reads the stored sessions, to open the picker on them (/sessions).
func (s *sessionState) listSessions() tea.Cmd {
	db := s.db
	return func() tea.Msg {
		s, err := db.Sessions()
		return sessionsMsg{sessions: s, err: err}
	}
}

// handleSessions opens the picker on the current session.
func (m *Model) handleSessions(msg sessionsMsg) tea.Cmd {
	if msg.err != nil {
		m.setNotice("could not list sessions: "+msg.err.Error(), true)
		return nil
	}
	if len(msg.sessions) == 0 {
		m.setNotice("no stored sessions", false)
		return nil
	}
	m.openOverlay(picker.New(msg.sessions, m.session.ID, m.db, m.keys.Picker, m.styles.list()))
	return nil
}

// openChosen is enter on a session in the picker: it is opened, asked first while a reply is
// being written. Opened from a search, the message that matched is shown and selected, and n
// finds the words again.
func (m *Model) openChosen(o picker.Open, pending confirm) tea.Cmd {
	// Asked first while a reply is being written, as /new does.
	c := confirm{action: "open", session: o.Session.ID}
	if q := m.leaveQuestion(c, pending, m.keys.Picker.Choose.Help().Key, "opens “"+sanitize.String(picker.Title(o.Session))+"”"); q != "" && o.Session.ID != m.session.ID {
		m.overlays.ask(c, q, m.styles, &m.noticeLine)
		return nil
	}
	m.dropOverlay(picker.ID)
	var cmd tea.Cmd
	if o.Session.ID != m.session.ID {
		cmd = m.switchTo(sessionByID(o.Session.ID))
	}
	if o.Matched {
		m.finding = finding{query: o.Query, reveal: o.Hit.MessageID}
		m.revealFound()
	}
	return cmd
}

// deleteSession is the delete key on session s: it asks first, and the same key again
// deletes s with its messages. The open session is not deleted.
func (m *Model) deleteSession(s stored.Session, pending confirm) tea.Cmd {
	if s.ID == m.session.ID {
		m.setNotice("this is the open session: open another one to delete it", true)
		return nil
	}
	c := confirm{action: "delete", session: s.ID}
	if pending != c {
		m.overlays.ask(c, fmt.Sprintf("%s again deletes “%s” and its %s — it cannot be undone",
			m.keys.Picker.Delete.Help().Key, sanitize.String(picker.Title(s)), chat.Plural(s.Messages, "message")), m.styles, &m.noticeLine)
		return nil
	}
	db, title := m.db, s.Title
	return func() tea.Msg {
		return picker.Edited{ID: s.ID, Title: title, Deleted: true, Err: db.DeleteSession(s.ID)}
	}
}

// handleSessionEdited says a session was deleted or renamed, shows it so in the picker, and in
// the header when it is the open one.
func (m *Model) handleSessionEdited(msg picker.Edited) tea.Cmd {
	if p := m.overlays.Find(picker.ID); p != nil {
		p.Update(msg)
	}
	what := map[bool]string{true: "delete", false: "rename"}[msg.Deleted]
	switch {
	case msg.Err != nil:
		m.setNotice("could not "+what+" the session: "+msg.Err.Error(), true)
	case msg.Deleted:
		m.setNotice("deleted “"+sanitize.String(picker.Title(stored.Session{Title: msg.Title}))+"”", false)
	default:
		if msg.ID == m.session.ID {
			m.session.Title = msg.Title
		}
		m.setNotice("renamed “"+sanitize.String(msg.Title)+"”", false)
	}
	return nil
}

// This part asks for /model's list (tui/modellist): the endpoint's models, when /model is typed
// alone, or for R the other profiles too, to run a reply again elsewhere: the new version then
// stands beside the old in the version view.

// modelsTimeout bounds asking the endpoint for its models.
const modelsTimeout = 15 * time.Second

// modelsMsg carries the endpoint's models, or why they could not be listed; compare is the
// reply R asked them for, 0 for /model.
type modelsMsg struct {
	models  []string
	compare int64
	err     error
}

// listModels asks the endpoint for its models, to open the list on them: for /model alone
// (compare 0), or for R on reply compare.
func (m *Model) listModels(compare int64) tea.Cmd {
	if m.client == nil {
		m.setNotice("no endpoint to list the models of", true)
		return nil
	}
	client := m.client
	m.setNotice("asking the endpoint for its models…", false)
	return fetchItems(modelsTimeout, func(ctx context.Context) tea.Msg {
		models, err := client.Models(ctx)
		return modelsMsg{models: models, compare: compare, err: err}
	})
}

// handleModels opens the list on the current model; for R, with the other profiles first,
// and on them alone when the endpoint lists no models.
func (m *Model) handleModels(msg modelsMsg) tea.Cmd {
	var choices []modellist.Choice
	if msg.compare != 0 {
		for _, c := range m.others {
			choices = append(choices, modellist.Choice{Model: c.Endpoint().Model, Profile: c.Endpoint().Name, Client: c})
		}
	}
	for _, name := range msg.models {
		choices = append(choices, modellist.Choice{Model: name})
	}
	switch {
	case len(choices) == 0 && msg.err != nil:
		m.setNotice("could not list the models: "+sanitize.String(msg.err.Error())+" (/model NAME sets one)", true)
		return nil
	case len(choices) == 0:
		m.setNotice("the endpoint lists no models; /model NAME sets one", true)
		return nil
	}
	m.notice = ""
	m.openOverlay(modellist.New(choices, m.modelName(), msg.compare, m.keys.Picker.Keys, m.styles.list()))
	return nil
}

// compareOn runs reply id again on choice: a new version of it, beside the one it has.
func (m *Model) compareOn(id int64, c modellist.Choice) tea.Cmd {
	client := c.Client
	if client == nil {
		client = m.client.WithModel(c.Model)
	}
	m.focus.toTranscript(&m.input, m.transcript)
	if cmd := m.regenerateOn(id, client); cmd != nil {
		m.setNotice(fmt.Sprintf("running it again on %s: [ and ] compare the versions", c.Label()), false)
		return cmd
	}
	return nil
}

// fetchItems returns a command that gets a list's items off the event loop, f given at most
// timeout: /model asks the endpoint for its models, /tools starts the servers.
func fetchItems(timeout time.Duration, f func(context.Context) tea.Msg) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		return f(ctx)
	}
}

// This part owns tools on the chat screen (the run's loop is toolloop.Start's): the question
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
	m.budget.toolsChanged(m.tools, &m.input, m.transcript, m.keys.Transcript.Pin.Help().Key)
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
	m.budget.toolsChanged(m.tools, &m.input, m.transcript, m.keys.Transcript.Pin.Help().Key) // the servers are started now: their tools count
	return nil
}

// toolsRunAgain is what r on reply id (of t) asks first when its run called tools: the calls
// the new run may make again. "" when it called none.
func toolsRunAgain(t *transcript.List, id int64) string {
	calls := t.ToolCalls(id)
	if len(calls) == 0 {
		return ""
	}
	var names []string
	for _, c := range calls {
		names = append(names, sanitize.String(chat.ToolSummary(c)))
	}
	return "its run called " + strings.Join(names, ", ") + ", which may run again"
}
