package printmode

import (
	"context"
	"fmt"
	"slices"

	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/mcp"
	"parley/internal/sanitize"
	"parley/internal/toolloop"
)

// stream sends msgs on the run's client (toolloop.Start), each tool server that cannot be
// started said on stderr.
func (p *printer) stream(ctx context.Context, msgs []chat.Message, progress stored.Progress) <-chan chat.Event {
	events, errs := toolloop.Start{Spend: p.o.Spend, Client: p.client, Tools: p.o.Tools, Store: p.o.DB, Gate: p.gate,
		SessionID: p.rcpt.SessionID, RunID: p.rcpt.RunID, Steps: progress.Steps, Seam: progress.Seam}.Stream(ctx, msgs)
	for _, err := range errs {
		p.say("%s; its tools are not offered", sanitize.String(err.Error()))
	}
	return events
}

// gate lets a tool run only when --allow-tool names it or its server, --allow-tools, or
// config.toml's allow.
func (p *printer) gate(t mcp.Tool) (toolloop.Decision, string) {
	if p.o.AllowAllTools || slices.Contains(p.o.AllowTools, toolloop.Key(t)) || slices.Contains(p.o.AllowTools, t.Server) ||
		p.o.Tools.Allowed(t) {
		return toolloop.Run, ""
	}
	return toolloop.Refuse, fmt.Sprintf("Not run: parley's print mode runs a tool only when --allow-tool %s (or --allow-tools, or allow in [mcp.%s]) allows it.", toolloop.Key(t), t.Server)
}

// toolCallJSON is one tool call of the --json object.
type toolCallJSON struct {
	Function  string          `json:"function"`
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Arguments string          `json:"arguments"`
	Status    chat.ToolStatus `json:"status"`
	Result    string          `json:"result"`
	IsError   bool            `json:"is_error"`
	Size      int             `json:"size"`
}

// toolResult says on stderr what became of a call, and keeps it for the --json object.
func (s *stream) toolResult(ev chat.Event) {
	s.stopStatus()
	s.out.Flush()
	s.endThinking()
	r := ev.Result
	s.res.ToolCalls = append(s.res.ToolCalls, toolCallJSON{Function: ev.Call.Function, Server: r.Server, Tool: r.Tool,
		Arguments: ev.Call.Arguments, Status: r.Status, Result: r.Text, IsError: r.IsError, Size: r.Size})
	// What came before a stored result is kept by a retry resumed from it: only output after
	// it rules a retry out.
	s.res.gotOutput = false
	line := "tool " + chat.ToolSummary(ev.Call) + " — " + chat.ToolOutcome(r)
	if r.Status != chat.ToolRan {
		line += ": " + r.Text
	}
	fmt.Fprintf(s.v.stderr, "parley: %s\n", sanitize.String(line))
}
