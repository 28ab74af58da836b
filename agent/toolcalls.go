package agent

import (
	"encoding/json"
	"slices"

	openai "github.com/sashabaranov/go-openai"

	"parley/internal/chat"
	"parley/retry"
)

// streamedCalls gathers the tool calls of one attempt from their pieces, merged by index: the
// first piece of a call has its id and the start of its name, later ones the rest of the
// name and the arguments, in fragments that are joined. Some servers repeat the id, or the
// whole name with it, in every piece: it starts nothing new.
type streamedCalls struct {
	calls []chat.ToolCall
}

// add takes one piece and returns it as the EventToolCall that shows it: its ID is set only
// on the piece that starts a call, so that the pieces shown merge as the call does.
func (s *streamedCalls) add(d retry.ToolCallDelta) chat.Event {
	for len(s.calls) <= d.Index {
		s.calls = append(s.calls, chat.ToolCall{})
	}
	c := &s.calls[d.Index]
	piece := chat.ToolCall{Function: d.Function.Name, Arguments: d.Function.Arguments}
	switch {
	case d.ID == "" || d.ID == c.ID && c.ID != "":
		if d.ID != "" && d.Function.Name == c.Function {
			piece.Function = "" // the whole name again, with the id
		}
	case c.ID == "":
		c.ID, piece.ID = d.ID, d.ID
	}
	c.Function += piece.Function
	c.Arguments += piece.Arguments
	return chat.Event{Kind: chat.EventToolCall, CallIndex: d.Index, Call: piece}
}

// names are the functions the model asked to call, in order, for RunNotes.
func (s *streamedCalls) names() []string {
	var out []string
	for _, c := range s.calls {
		if c.Function != "" {
			out = append(out, c.Function)
		}
	}
	return out
}

// whole returns the calls of a stream that ended cleanly when they are whole; nil otherwise:
// a call the stream did not finish is never run. finish_reason tool_calls says they are; so
// does their content, for the servers that end a call with "stop": each has a name and
// arguments that read as JSON (none at all is none, {}). A stream stopped at the token limit
// or by a filter is not trusted to have finished any.
func (s *streamedCalls) whole(finishReason string) []chat.ToolCall {
	if len(s.calls) == 0 {
		return nil
	}
	switch finishReason {
	case "tool_calls":
	case "length", "content_filter":
		return nil
	default:
		for _, c := range s.calls {
			if c.Function == "" || c.Arguments != "" && !json.Valid([]byte(c.Arguments)) {
				return nil
			}
		}
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
