package transcript

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/sanitize"
)

// This file shows a reply's tool calls: each one line like thinking ("▸ read_file
// {"path":"main.go"} · ran, 1.2 kB"), expanded with t to its arguments and result.

// maxResultLines bounds the lines of a result an expanded call shows: tool output can be
// long, and the whole of it is in the history and the export.
const maxResultLines = 20

// toolLine is one tool call of a reply as the transcript shows it.
type toolLine struct {
	call chat.ToolCall
	// res is what became of it; its Status is empty until it is known. running and asking
	// say it runs, or waits for the operator's answer.
	res             chat.ToolResult
	running, asking bool
}

// tools is what an entry keeps of its reply's tool calls.
type tools struct {
	lines []toolLine
	// step is where the calls of the model call streaming now begin: pieces are numbered
	// within their step.
	step     int
	expanded bool
}

// fillTools takes a stored reply's tool calls.
func (e *entry) fillTools(msg stored.Message) {
	for _, c := range msg.ToolCalls {
		e.tools.lines = append(e.tools.lines, toolLine{call: c.Call, res: c.Result})
	}
}

// AppendToolCall adds a piece of a tool call streaming into reply id: a piece with an id
// begins call index of its step, any other adds to its name and arguments.
func (t *List) AppendToolCall(id int64, index int, piece chat.ToolCall) {
	e := t.byID[id]
	if e == nil {
		return
	}
	tl := &e.tools
	if piece.ID != "" {
		if index == 0 {
			tl.step = len(tl.lines)
		}
		tl.lines = append(tl.lines, toolLine{call: chat.ToolCall{ID: piece.ID, Function: piece.Function}})
	}
	if i := tl.step + index; i < len(tl.lines) {
		if piece.ID == "" {
			tl.lines[i].call.Function += piece.Function // a name in pieces
		}
		tl.lines[i].call.Arguments += piece.Arguments
	}
	e.version++
}

// SetToolState marks the call callID of reply id as waiting for the operator's answer, or
// as running.
func (t *List) SetToolState(id int64, callID string, asking, running bool) {
	if l := t.toolLine(id, callID); l != nil {
		l.asking, l.running = asking, running
		t.byID[id].version++
	}
}

// SetToolResult records what became of the call of reply id.
func (t *List) SetToolResult(id int64, call chat.ToolCall, res chat.ToolResult) {
	l := t.toolLine(id, call.ID)
	if l == nil {
		e := t.byID[id]
		if e == nil {
			return
		}
		e.tools.lines = append(e.tools.lines, toolLine{})
		l = &e.tools.lines[len(e.tools.lines)-1]
	}
	l.call, l.res, l.asking, l.running = call, res, false, false
	t.byID[id].version++
}

// ToolCalls returns the calls reply id made, as the transcript has them.
func (t *List) ToolCalls(id int64) []chat.ToolCall {
	e := t.byID[id]
	if e == nil {
		return nil
	}
	var out []chat.ToolCall
	for _, l := range e.tools.lines {
		out = append(out, l.call)
	}
	return out
}

// ToggleTools expands or collapses the tool calls of reply id, and reports whether it has any.
func (t *List) ToggleTools(id int64) bool {
	e := t.byID[id]
	if e == nil || len(e.tools.lines) == 0 {
		return false
	}
	e.tools.expanded = !e.tools.expanded
	e.version++
	return true
}

func (t *List) toolLine(id int64, callID string) *toolLine {
	e := t.byID[id]
	if e == nil || callID == "" {
		return nil
	}
	for i := range e.tools.lines {
		if e.tools.lines[i].call.ID == callID {
			return &e.tools.lines[i]
		}
	}
	return nil
}

// toolLines renders an entry's tool calls at width w.
func (t *List) toolLines(e *entry, w int) []string {
	st := t.styles
	var out []string
	for _, l := range e.tools.lines {
		head := sanitize.String(chat.ToolSummary(l.call))
		state, style := "", st.Muted
		switch {
		case l.asking:
			state, style = "waiting for your answer", st.Warn
		case l.running:
			state = "running…"
		case l.res.Status == "":
		case l.res.IsError || l.res.Status == chat.ToolFailed:
			state, style = chat.ToolOutcome(l.res), st.Error
		default:
			state = chat.ToolOutcome(l.res)
		}
		if state != "" {
			head += " · " + state
		}
		mark := "▸ "
		if e.tools.expanded {
			mark = "▾ "
		}
		out = append(out, "  "+style.Render(ansi.Truncate(mark+head, w-2, "…")))
		if !e.tools.expanded {
			continue
		}
		for _, s := range strings.Split(ansi.Wrap(sanitize.String(l.call.Arguments), w-4, ""), "\n") {
			out = append(out, "    "+st.Muted.Render(s))
		}
		if l.res.Status != "" {
			lines := strings.Split(ansi.Wrap(sanitize.String(l.res.ResultText()), w-6, ""), "\n")
			if len(lines) > maxResultLines {
				lines = append(lines[:maxResultLines], "…")
			}
			for _, s := range lines {
				out = append(out, "    "+st.Muted.Render("│ "+s))
			}
		}
	}
	if len(out) > 0 && e.tools.expanded {
		out = append(out, "")
	}
	return out
}
