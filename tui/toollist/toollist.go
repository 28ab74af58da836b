// Package toollist is /tools: each tool server and its tools, with what their schemas cost in
// every request, narrowed by typing; enter turns the server or tool under the cursor on or off
// for the session.
package toollist

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"parley/agent"
	"parley/internal/chat"
	"parley/internal/mcp"
	"parley/internal/sanitize"
	"parley/internal/toolloop"
	"parley/tui/filterlist"
	"parley/tui/overlay"
)

// ID names the list on the screen's stack of overlays.
const ID = "tools"

// Row is one row of the list: a server, or one of its tools.
type Row struct {
	Server string
	Tool   *mcp.Tool
	// Tokens is what the schemas cost in every request (the tool's, or all the server's);
	// Count is how many tools a server has.
	Tokens, Count int
	Err           string
}

// Rows lists each server of box, then its tools, with what each schema costs in tokens; a
// server's error passes redact (it may quote the server's stderr). It starts the servers: call
// it off the event loop.
func Rows(ctx context.Context, box *toolloop.Toolbox, redact *chat.Redactor) []Row {
	var rows []Row
	for _, server := range box.Servers() {
		tools, err := box.Host().Tools(ctx, server)
		if err != nil {
			rows = append(rows, Row{Server: server, Err: redact.String(err.Error())})
			continue
		}
		head := len(rows)
		rows = append(rows, Row{Server: server, Count: len(tools)})
		for i := range tools {
			n := agent.EstimateText(string(tools[i].Entry))
			rows[head].Tokens += n
			rows = append(rows, Row{Server: server, Tool: &tools[i], Tokens: n})
		}
	}
	return rows
}

// look is how the list is drawn.
var look = filterlist.Look{Title: "Tools", Choose: "on/off", Typing: "type to narrow", Query: "filter", None: "no tool's name contains "}

// List is /tools' list over the session's tools.
type List struct {
	list   filterlist.List[Row]
	box    *toolloop.Toolbox
	keys   filterlist.Keys
	styles filterlist.Styles
}

// New returns the list of rows, which turns box's tools on and off.
func New(rows []Row, box *toolloop.Toolbox, keys filterlist.Keys, styles filterlist.Styles) *List {
	return &List{list: filterlist.List[Row]{Items: rows, Kept: rows}, box: box, keys: keys, styles: styles}
}

// ID is the list's name on the stack.
func (*List) ID() string { return ID }

// Update takes every key: arrows move, enter turns the row's server or tool on or off, esc
// closes, typing narrows.
func (l *List) Update(msg tea.Msg) overlay.Action {
	switch l.list.Update(msg, l.keys) {
	case filterlist.Chose:
		r, _ := l.list.Current()
		switch {
		case r.Err != "":
		case r.Tool == nil:
			l.box.SetServer(r.Server, !l.box.ServerOn(r.Server))
		default:
			l.box.SetTool(*r.Tool, !l.box.On(*r.Tool))
		}
	case filterlist.Closed:
		return overlay.Close{}
	case filterlist.Typed:
		q := strings.ToLower(l.list.Query)
		l.list.Narrow(func(r Row) bool {
			return strings.Contains(r.Server, q) || r.Tool != nil && strings.Contains(strings.ToLower(r.Tool.Name), q)
		})
	}
	return nil
}

// View draws the list in the transcript's place: height lines.
func (l *List) View(width, height int) []string {
	st := l.styles
	return l.list.View(st, l.keys, width, height, look, func(r Row) string {
		switch {
		case r.Err != "":
			return sanitize.String(r.Server) + st.Muted.Render("  "+sanitize.String(r.Err))
		case r.Tool == nil:
			on := "off"
			if l.box.ServerOn(r.Server) {
				on = "on"
			}
			return fmt.Sprintf("%s  %s", sanitize.String(r.Server), st.Muted.Render(fmt.Sprintf("%s · %d tools · %s tok in all", on, r.Count, chat.FormatTokens(r.Tokens))))
		}
		box := "[ ]"
		if l.box.On(*r.Tool) {
			box = "[x]"
		}
		return fmt.Sprintf("  %s %s  %s", box, sanitize.String(r.Tool.Name), st.Muted.Render(chat.FormatTokens(r.Tokens)+" tok"))
	})
}

// Help is the list's keys: enter on/off, esc close.
func (l *List) Help() []key.Binding { return filterlist.Help(l.keys, look) }
