// Package toolloop runs a run's steps: a model call, the tools it asked for (each stored
// before it runs and after, asked for or allowed first), their results sent back in the next
// model call, until the model answers without asking or the run reaches its limit of steps.
// It is where the endpoint client (a Model) meets the tool servers (internal/mcp) and the
// history (a Store); it never retries a tool, and a call cut short by its stream never runs.
package toolloop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"parley/internal/chat"
	"parley/internal/mcp"
)

// DefaultMaxSteps bounds a run's model calls when the Loop sets no bound: past it the run
// stops, says so, and leaves the model's last calls unrun.
const DefaultMaxSteps = 25

// Model sends one model call of msgs and streams its events (the endpoint client with the
// tools offered, behind the spend guard).
type Model func(ctx context.Context, msgs []chat.Message) <-chan chat.Event

// Host runs tools: *mcp.Host.
type Host interface {
	Lookup(function string) (mcp.Tool, bool)
	Call(ctx context.Context, server, tool string, args json.RawMessage) (mcp.Result, error)
}

// Store keeps a run's tool calls: *history.DB. A call is stored before it runs and its end
// after; a call that could not be stored is not run.
type Store interface {
	BeginToolCall(runID int64, step, seam int, call chat.ToolCall, server, tool string) (int64, error)
	EndToolCall(id int64, r chat.ToolResult) error
}

// Decision is whether a call runs.
type Decision int

const (
	// Ask: the operator answers (EventToolAsk).
	Ask Decision = iota
	// Run without asking.
	Run
	// Refuse without asking; the reason goes back to the model as the tool's result.
	Refuse
)

// Gate decides whether a call of tool may run, and when it refuses, why.
type Gate func(tool mcp.Tool) (Decision, string)

// Loop is one run's steps.
type Loop struct {
	Model Model
	Host  Host
	Store Store
	Gate  Gate
	// RunID is the run the calls are stored with.
	RunID int64
	// MaxSteps bounds the model calls; 0 is DefaultMaxSteps.
	MaxSteps int
	// Steps and Seam are where the run begins: a resumed run's steps already taken, and the
	// bytes of reply text it already has.
	Steps, Seam int
	// Redactor is the endpoint's (agent.Client.Redactor): it takes the secrets out of every
	// tool result before it is stored, shown or sent to the model. The model's events come
	// redacted from the client already.
	Redactor *chat.Redactor
}

// Refused is what goes back to the model for a call the operator refused.
const Refused = "The operator refused this call; it was not run. Do not call it again for this request unless asked."

// cancelledText is what goes back to the model, in a later turn, for a call the operator stopped.
const cancelledText = "The operator stopped the turn; this call was cancelled."

// Run streams the run's events: each model call's, and the tool events between them, then
// exactly one terminal event (the last model call's, or EventCancelled, or a failure to store
// a call), then closes. Cancelling ctx cancels a model call, a wait for the operator, or a
// tool call through MCP; the call is stored cancelled.
func (l Loop) Run(ctx context.Context, msgs []chat.Message) <-chan chat.Event {
	out := make(chan chat.Event, 64)
	go l.run(ctx, msgs, out)
	return out
}

func (l Loop) run(ctx context.Context, msgs []chat.Message, out chan<- chat.Event) {
	defer close(out)
	limit := l.MaxSteps
	if limit <= 0 {
		limit = DefaultMaxSteps
	}
	seam := l.Seam
	for step := l.Steps; ; step++ {
		var text, thought strings.Builder
		var end chat.Event
		for ev := range l.Model(ctx, msgs) {
			if ev.Terminal() {
				end = ev
				continue
			}
			switch ev.Kind {
			case chat.EventDelta:
				text.WriteString(ev.Text)
				seam += len(ev.Text)
			case chat.EventReasoning:
				thought.WriteString(ev.Text)
			}
			out <- ev
		}
		if !end.Terminal() {
			return // the model's events ended without an end: the recorder says so
		}
		if end.Kind != chat.EventFinished || len(end.Calls) == 0 {
			out <- end
			return
		}
		msgs = append(msgs, chat.Message{Role: chat.RoleAssistant, Content: text.String(), Reasoning: thought.String(), ToolCalls: end.Calls})
		last := step+1 >= limit
		for _, call := range end.Calls {
			res, err := l.call(ctx, step, seam, call, last, limit, out)
			if err != nil {
				out <- chat.Event{Kind: chat.EventFailed,
					Class: chat.NewClassification(chat.BadRequest, "tool call not stored: "+err.Error()+"; the call was not run")}
				return
			}
			msgs = append(msgs, chat.Message{Role: chat.RoleTool, ToolCallID: call.ID, Content: res.ResultText()})
		}
		switch {
		case ctx.Err() != nil:
			out <- chat.Event{Kind: chat.EventCancelled}
			return
		case last:
			end.StepLimit = limit
			out <- end
			return
		}
	}
}

// call stores call, decides it, runs it when it may, stores its end and reports each stage.
// The error is a call that could not be stored (and so was not run).
func (l Loop) call(ctx context.Context, step, seam int, call chat.ToolCall, last bool, limit int, out chan<- chat.Event) (chat.ToolResult, error) {
	tool, known := l.Host.Lookup(call.Function)
	res := chat.ToolResult{Server: tool.Server, Tool: tool.Name}
	id, err := l.Store.BeginToolCall(l.RunID, step, seam, call, tool.Server, tool.Name)
	if err != nil {
		return res, err
	}
	res = l.decide(ctx, call, tool, known, last, limit, out)
	res.Text = l.Redactor.String(res.Text)
	if err := l.Store.EndToolCall(id, res); err != nil {
		return res, err
	}
	out <- chat.Event{Kind: chat.EventToolResult, Call: call, Result: res}
	return res, nil
}

// decide runs call when it may, and says what became of it.
func (l Loop) decide(ctx context.Context, call chat.ToolCall, tool mcp.Tool, known, last bool, limit int, out chan<- chat.Event) chat.ToolResult {
	res := chat.ToolResult{Server: tool.Server, Tool: tool.Name}
	refuse := func(why string) chat.ToolResult {
		res.Status, res.Text = chat.ToolRefused, why
		return res
	}
	switch {
	case ctx.Err() != nil:
		res.Status, res.Text = chat.ToolCancelled, cancelledText
		return res
	case !known:
		res.Status, res.Text = chat.ToolFailed, fmt.Sprintf("No tool named %q is on; nothing was run.", call.Function)
		return res
	case !json.Valid([]byte(call.Arguments)):
		res.Status, res.Text = chat.ToolFailed, "Its arguments are not valid JSON, so it was not run: "+call.Arguments
		return res
	case last:
		return refuse(fmt.Sprintf("Not run: the run reached its limit of %d steps.", limit))
	}
	decision, why := Ask, ""
	if l.Gate != nil {
		decision, why = l.Gate(tool)
	}
	switch decision {
	case Refuse:
		return refuse(why)
	case Ask:
		answer := make(chan bool, 1)
		out <- chat.Event{Kind: chat.EventToolAsk, Call: call, Result: res, Answer: answer}
		select {
		case yes := <-answer:
			if !yes {
				return refuse(Refused)
			}
		case <-ctx.Done():
			res.Status, res.Text = chat.ToolCancelled, cancelledText
			return res
		}
	}
	out <- chat.Event{Kind: chat.EventToolRunning, Call: call, Result: res}
	got, err := l.Host.Call(ctx, tool.Server, tool.Name, json.RawMessage(call.Arguments))
	switch {
	case err != nil && errors.Is(err, context.Canceled) && ctx.Err() != nil:
		res.Status, res.Text = chat.ToolCancelled, cancelledText
	case err != nil:
		res.Status, res.Text = chat.ToolFailed, err.Error()
	default:
		res.Status, res.Text, res.Size, res.IsError = chat.ToolRan, got.Text, got.Size, got.IsError
	}
	return res
}
