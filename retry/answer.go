package retry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"strings"
)

// A 2xx answer to a streamed request is read by its shape, by the live client and by
// ParseRaw alike: an event stream is the reply as it streams; a whole chat.completion (from a
// proxy that ignores stream: true) is the reply too, sent at once; a JSON error is a failure
// classified from its error as a status failure would be; anything else (a login page, the
// wrong URL, Ollama's native NDJSON) is not retryable, and says what came.

// Shape is what a 2xx answer holds.
type Shape int

// The shapes of a 2xx answer.
const (
	ShapeStream     Shape = iota // an event stream
	ShapeCompletion              // a whole chat.completion, not streamed
	ShapeError                   // a JSON error
	ShapeOther                   // anything else
)

// IsEventStream reports whether a 2xx answer with contentType, whose body begins with head, is
// an event stream: declared so, or beginning like one (an SSE field or comment), whatever the
// declared type.
func IsEventStream(contentType string, head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n\ufeff")
	for _, p := range []string{"data:", "event:", "id:", "retry:", ":"} {
		if bytes.HasPrefix(head, []byte(p)) {
			return true
		}
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt == "text/event-stream" && (len(head) == 0 || head[0] != '{' && head[0] != '[' && head[0] != '<')
}

// Completion is the reply a whole chat.completion holds.
type Completion struct {
	Content, Reasoning string
	FinishReason       string
	// Model is the model that answered, as the endpoint names it.
	Model string
	// ToolCalls are the tool calls the model asked for, Index numbering them.
	ToolCalls []ToolCallDelta
	// PromptTokens and CompletionTokens are its usage; both 0 when it reported none.
	PromptTokens, CompletionTokens int
}

// completionJSON is the part of a chat.completion parley reads.
type completionJSON struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			ChunkDelta
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// ReadAnswer reads the whole body of a 2xx answer that is not an event stream: a completion
// (its reply), a JSON error (ShapeError: classify body as a status failure), or ShapeOther, with
// what describes it for the operator.
func ReadAnswer(status int, contentType string, body []byte) (shape Shape, c Completion, what string) {
	trimmed := bytes.TrimSpace(body)
	var cj completionJSON
	if json.Unmarshal(trimmed, &cj) == nil && len(cj.Choices) > 0 {
		ch := cj.Choices[0]
		if ch.Message.Content != nil {
			c.Content = *ch.Message.Content
		}
		c.Reasoning, c.FinishReason, c.Model = ch.Message.Thinking(), ch.FinishReason, cj.Model
		for i, tc := range ch.Message.ToolCalls {
			tc.Index = i
			c.ToolCalls = append(c.ToolCalls, tc)
		}
		if u := cj.Usage; u != nil {
			c.PromptTokens, c.CompletionTokens = u.PromptTokens, u.CompletionTokens
		}
		return ShapeCompletion, c, ""
	}
	if _, isJSON := decodeJSON(trimmed); isJSON && !ndjson(trimmed) {
		if _, found := parseProviderError(trimmed); found {
			return ShapeError, Completion{}, ""
		}
	}
	return ShapeOther, Completion{}, notAStream(status, contentType, trimmed)
}

// ndjson reports whether body is several JSON values, one a line: a native streaming API
// (Ollama's /api/chat) answering where an event stream was asked for.
func ndjson(body []byte) bool {
	lines := 0
	for line := range bytes.Lines(body) {
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		if line[0] != '{' || !json.Valid(line) {
			return false
		}
		lines++
	}
	return lines > 1
}

// maxFirstLine bounds the first line of a body quoted to the operator.
const maxFirstLine = 120

// notAStream says what a 2xx answer that is neither a stream, a completion nor an error held.
func notAStream(status int, contentType string, body []byte) string {
	kind := contentType
	if mt, _, err := mime.ParseMediaType(contentType); err == nil {
		kind = mt
	}
	guess := "the wrong URL?"
	switch {
	case kind == "text/html" || bytes.HasPrefix(bytes.ToLower(body), []byte("<!doctype html")) || bytes.HasPrefix(body, []byte("<html")):
		kind, guess = "text/html", "a login page, or the wrong URL?"
	case ndjson(body):
		kind, guess = "lines of JSON", "a native API (Ollama's /api/chat?): the base URL should end in /v1"
	case len(body) == 0:
		kind, guess = "nothing", "the wrong URL, or a proxy that dropped the body?"
	case kind == "":
		kind = "text"
	}
	line, _, _ := bytes.Cut(body, []byte("\n"))
	first := strings.TrimSpace(string(line))
	if len(first) > maxFirstLine {
		first = first[:maxFirstLine] + "…"
	}
	s := fmt.Sprintf("the endpoint answered %d %s, not an event stream — %s", status, kind, guess)
	if first != "" {
		s += " (" + first + ")"
	}
	return s
}
