package retry

import (
	"bytes"
	"encoding/json"
	"strings"
)

// ChunkDelta is the delta of one choice in a streamed chat.completion.chunk: answer text in
// content, thinking in reasoning_content or reasoning (endpoints use either name).
type ChunkDelta struct {
	Content          string `json:"content"`
	ReasoningContent string `json:"reasoning_content"`
	Reasoning        string `json:"reasoning"`
	// ToolCalls are the tool calls the model asks for, in pieces.
	ToolCalls []ToolCallDelta `json:"tool_calls"`
}

// ToolCallDelta is a tool call, or a piece of one: in a stream the first piece of each call
// (by Index) has its ID and name, and the arguments follow in fragments to be joined; a whole
// completion has each call in one piece.
type ToolCallDelta struct {
	Index    int    `json:"index"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Thinking is the delta's thinking, whichever field carries it.
func (d ChunkDelta) Thinking() string { return d.ReasoningContent + d.Reasoning }

// StreamError finds the first error frame in raw event-stream text and returns its payload,
// ready to be a Failure's Body. It recognises every form an error takes inside a 200 stream:
//
//   - a data line holding an error object: data: {"error":{…}} (OpenAI, OpenRouter, vLLM);
//   - any data line after event: error (Anthropic);
//   - llama.cpp's non-standard error: {…} field;
//   - an unframed JSON line of type "error" or "…_error" (Responses-API events);
//   - a chunk whose finish_reason is "content_filter", which withholds the reply without an
//     error object.
//
// Comments (": keep-alive"), ordinary chunks and [DONE] are not error frames.
func StreamError(sse []byte) (frame []byte, ok bool) {
	event := ""
	for line := range bytes.Lines(sse) {
		line = bytes.TrimRight(line, "\r\n")
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimSpace(value)
		switch {
		case len(line) == 0:
			event = "" // a blank line ends the event
		case len(field) == 0:
			// a comment
		case string(field) == "event":
			event = string(value)
		case string(field) == "error":
			return value, true
		case string(field) == "data":
			if event == "error" || errorPayload(value) {
				return value, true
			}
		case line[0] == '{' && errorPayload(line):
			return line, true
		}
	}
	return nil, false
}

// errorPayload reports whether a JSON payload is an error frame.
func errorPayload(p []byte) bool {
	var v any
	if json.Unmarshal(p, &v) != nil {
		return false
	}
	if arr, ok := v.([]any); ok && len(arr) > 0 {
		v = arr[0] // Gemini wraps its error object in an array
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	if e, ok := obj["error"]; ok && e != nil {
		return true
	}
	typ, _ := obj["type"].(string)
	_, hasMessage := obj["message"]
	return typ == "error" || (strings.HasSuffix(typ, "_error") && hasMessage) || finishedByFilter(obj)
}
