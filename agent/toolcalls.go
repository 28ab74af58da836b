package agent

import (
	"encoding/json"
	"slices"

	openai "github.com/sashabaranov/go-openai"

	"parley/internal/chat"
	"parley/retry"
)

// streamedCalls gathers the tool calls of one attempt from their pieces, by index: the first
// piece of a call has its id and name, the arguments come in fragments and are joined.
type streamedCalls struct {
	calls []chat.ToolCall
	// names are the functions in the order the model named them, for RunNotes.
	names []string
}

// add takes one piece and returns it as the EventToolCall that shows it.
func (s *streamedCalls) add(d retry.ToolCallDelta) chat.Event {
	for len(s.calls) <= d.Index {
		s.calls = append(s.calls, chat.ToolCall{})
	}
	c := &s.calls[d.Index]
	if d.ID != "" {
		c.ID = d.ID
	}
	if d.Function.Name != "" {
		c.Function += d.Function.Name
		s.names = append(s.names, d.Function.Name)
	}
	c.Arguments += d.Function.Arguments
	return chat.Event{Kind: chat.EventToolCall, CallIndex: d.Index,
		Call: chat.ToolCall{ID: d.ID, Function: d.Function.Name, Arguments: d.Function.Arguments}}
}

// whole returns the calls when the stream ended as a call ends, with finish_reason
// tool_calls; nil otherwise: a call the stream did not finish is never run. A call the model
// gave no arguments takes none ({}).
func (s *streamedCalls) whole(finishReason string) []chat.ToolCall {
	if finishReason != "tool_calls" || len(s.calls) == 0 {
		return nil
	}
	out := slices.Clone(s.calls)
	for i := range out {
		if out[i].Arguments == "" {
			out[i].Arguments = "{}"
		}
	}
	return out
}

// WithTools returns a client that offers tools, each an OpenAI `tools` entry as JSON
// ({"type":"function","function":{…}}), in every request; none offers none.
func (c *Client) WithTools(tools []json.RawMessage) *Client {
	cc := *c
	cc.tools, cc.toolTokens = nil, ToolTokens(tools)
	for _, entry := range tools {
		// The entry is read into go-openai's own type. Its parameters go into a json.RawMessage
		// (json fills the pointer Parameters holds), so the schema is sent as the server wrote
		// it, not remade from a map.
		var schema json.RawMessage
		t := openai.Tool{Function: &openai.FunctionDefinition{Parameters: &schema}}
		if json.Unmarshal(entry, &t) != nil {
			continue // mcp.Tool.Entry is made by json.Marshal: it always reads
		}
		cc.tools = append(cc.tools, t)
	}
	return &cc
}

// ToolTokens estimates what offering tools (OpenAI `tools` entries, as WithTools takes them)
// adds to every request: their schemas are sent with each one, and take room in the window.
func ToolTokens(tools []json.RawMessage) int {
	n := 0
	for _, entry := range tools {
		n += EstimateText(string(entry))
	}
	return n
}

// toolMessage converts the tool calls and tool results of m for the request.
func toolMessage(m chat.Message, out *openai.ChatCompletionMessage) {
	for _, tc := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, openai.ToolCall{ID: tc.ID, Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: tc.Function, Arguments: tc.Arguments}})
	}
	out.ToolCallID = m.ToolCallID
}
