package demo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Call is a tool call a scripted reply asks for: the function, as the request offered it, and
// its arguments as JSON text (empty: none).
type Call struct {
	Function  string `json:"function"`
	Arguments string `json:"arguments,omitempty"`
}

// ToolCall is a tool call a request carried back in an assistant message, as OpenAI sends it.
type ToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// AskTools is the reply that asks for calls instead of answering: streamed as OpenAI streams
// tool calls, finish_reason tool_calls.
func AskTools(calls ...Call) Fault { return Fault{Calls: calls} }

// argumentPiece is the most bytes of arguments one chunk carries, as models stream them: a
// few characters at a time.
const argumentPiece = 8

// argumentPieces splits arguments into the fragments a model streams, never inside a rune.
func argumentPieces(arguments string) []string {
	var out []string
	for len(arguments) > 0 {
		n := min(argumentPiece, len(arguments))
		for n < len(arguments) && !utf8.RuneStart(arguments[n]) {
			n++
		}
		out = append(out, arguments[:n])
		arguments = arguments[n:]
	}
	return out
}

// callID is the id of call i of the completion seq, in OpenAI's form.
func callID(seq, i int) string { return fmt.Sprintf("call_parleydemo%06d_%d", seq, i) }

// replyCalls streams f.Calls as OpenAI does: the first chunk of each call carries its index,
// id, type and name with empty arguments, then chunks carry its arguments in fragments, then
// a chunk with an empty delta and finish_reason tool_calls. f.CutAfter, when positive, drops
// the connection after that many argument fragments: a call cut mid-arguments.
func (s *Server) replyCalls(w http.ResponseWriter, r *http.Request, req chatRequest, seq int, c completion, f Fault) {
	for _, call := range f.Calls {
		c.completionChars += len(call.Function) + len(call.Arguments)
	}
	if !req.Stream {
		replyCallsWhole(w, c, seq, f.Calls)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	sw := newSSEWriter(w, c)
	fragments := 0
	for i, call := range f.Calls {
		role := ""
		if i == 0 {
			role = `"role":"assistant","content":null,`
		}
		sw.chunk(`"choices":[{"index":0,"delta":{` + role + `"tool_calls":[{"index":` + strconv.Itoa(i) +
			`,"id":` + string(jsonString(callID(seq, i))) + `,"type":"function","function":{"name":` +
			string(jsonString(call.Function)) + `,"arguments":""}}]},"logprobs":null,"finish_reason":null}]`)
		for _, piece := range argumentPieces(call.Arguments) {
			if !s.wait(r.Context(), s.opts.Pace) {
				return
			}
			sw.chunk(`"choices":[{"index":0,"delta":{"tool_calls":[{"index":` + strconv.Itoa(i) +
				`,"function":{"arguments":` + string(jsonString(piece)) + `}}]},"logprobs":null,"finish_reason":null}]`)
			if fragments++; f.CutAfter > 0 && fragments == f.CutAfter {
				sw.w.Flush()
				abort(w, false)
				return
			}
		}
	}
	sw.chunk(`"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}]`)
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		p, q := c.usage()
		sw.chunk(fmt.Sprintf(`"choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}`, p, q, p+q))
	}
	sw.begin()
	sw.w.WriteString("[DONE]")
	sw.end()
	sw.flush()
}

// replyCallsWhole answers a request that did not ask to stream with the calls in one
// chat.completion.
func replyCallsWhole(w http.ResponseWriter, c completion, seq int, calls []Call) {
	tcs := make([]ToolCall, len(calls))
	for i, call := range calls {
		tcs[i].ID, tcs[i].Type = callID(seq, i), "function"
		tcs[i].Function.Name, tcs[i].Function.Arguments = call.Function, call.Arguments
	}
	p, q := c.usage()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(map[string]any{"id": c.id, "object": "chat.completion", "created": c.created, "model": c.model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls",
			"message": map[string]any{"role": "assistant", "content": nil, "tool_calls": tcs}}},
		"usage": map[string]int{"prompt_tokens": p, "completion_tokens": q, "total_tokens": p + q}}) // plain values: cannot fail
	w.Header().Set("Content-Type", "application/json")
	w.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// toolCommand runs "/demo tool NAME [ARGUMENTS]": the next reply asks for one call of NAME
// with ARGUMENTS, a JSON object (default {}).
func (s *Server) toolCommand(rest []string, bad func(string, ...any) (string, error)) (string, error) {
	if len(rest) == 0 {
		return bad("name the tool, as /tools lists it")
	}
	name, args := rest[0], strings.Join(rest[1:], " ")
	if args == "" {
		args = "{}"
	}
	var object map[string]any
	if json.Unmarshal([]byte(args), &object) != nil {
		return bad("the arguments %s are not a JSON object, such as {\"path\":\"main.go\"}", args)
	}
	s.Push(AskTools(Call{Function: name, Arguments: args}))
	return fmt.Sprintf("demo: the next reply asks to call %s %s", name, args), nil
}

// toolReply is the demo's answer to a conversation whose last message is a tool's result: it
// says what came back, so the loop can be seen end to end offline.
func toolReply(msgs []Message) (string, bool) {
	n := len(msgs)
	if n == 0 || msgs[n-1].Role != "tool" {
		return "", false
	}
	first := n - 1
	for first > 0 && msgs[first-1].Role == "tool" {
		first--
	}
	var b strings.Builder
	b.WriteString("The tool")
	if n-first > 1 {
		b.WriteString("s")
	}
	b.WriteString(" answered:\n\n")
	for _, m := range msgs[first:] {
		b.WriteString("> " + quote(m.Content) + "\n")
	}
	return strings.TrimRight(b.String(), "\n"), true
}
