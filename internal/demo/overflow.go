package demo

import (
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Overflow names the form in which the server rejects a prompt above its context budget, as
// a provider of that kind words it.
type Overflow string

// The overflow forms, after the real responses in parley's error corpus.
const (
	// OverflowOpenAI is a 400 context_length_exceeded: "maximum context length is N tokens".
	OverflowOpenAI Overflow = "openai"
	// OverflowLlamaCpp is llama.cpp's 400 exceed_context_size_error, with n_ctx and
	// n_prompt_tokens beside the message.
	OverflowLlamaCpp Overflow = "llamacpp"
	// OverflowVLLM is vLLM's: a 200 stream whose first frame is the error, then [DONE].
	OverflowVLLM Overflow = "vllm"
	// OverflowAnthropic is a 400 invalid_request_error "prompt is too long: M tokens > N maximum".
	OverflowAnthropic Overflow = "anthropic"
	// OverflowDeepSeek is DeepSeek's 400 invalid_request_error, worded like OpenAI's but with
	// the messages' and the completion's shares of the request.
	OverflowDeepSeek Overflow = "deepseek"
)

// Overflows lists every overflow form.
var Overflows = []Overflow{OverflowOpenAI, OverflowLlamaCpp, OverflowVLLM, OverflowAnthropic, OverflowDeepSeek}

// promptTokens counts a request's prompt as the server's usage does: a quarter of the
// characters of its messages, rounded up.
func promptTokens(msgs []Message) int {
	var c completion
	for _, m := range msgs {
		c.promptChars += utf8.RuneCountInString(m.Content)
	}
	p, _ := c.usage()
	return p
}

// SetContext makes the server reject every prompt of more than tokens tokens (counted as its
// usage counts them) in form; tokens 0 accepts every prompt again. Queued faults still come
// first.
func (s *Server) SetContext(tokens int, form Overflow) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.ContextTokens, s.opts.Overflow = tokens, form
}

// overflow returns the fault that rejects msgs when they are above the context budget.
func (s *Server) overflow(msgs []Message) (f Fault, over bool) {
	s.mu.Lock()
	limit, form := s.opts.ContextTokens, s.opts.Overflow
	s.mu.Unlock()
	if prompt := promptTokens(msgs); limit > 0 && prompt > limit {
		return OverflowFault(form, limit, prompt), true
	}
	return Fault{}, false
}

// normal reports whether f is the zero Fault: a normal reply.
func (f Fault) normal() bool {
	return reflect.ValueOf(f).IsZero()
}

// OverflowFault is the response that rejects a prompt of prompt tokens against a context of
// limit tokens, in form.
func OverflowFault(form Overflow, limit, prompt int) Fault {
	switch form {
	case OverflowLlamaCpp:
		return Fault{Status: http.StatusBadRequest, Header: jsonHeader, Body: fmt.Sprintf(
			`{"error":{"code":400,"message":"request (%d tokens) exceeds the available context size (%d tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":%d,"n_ctx":%d}}`,
			prompt, limit, prompt, limit)}
	case OverflowVLLM:
		return Fault{Stream: fmt.Sprintf(
			`data: {"error": {"message": "This model's maximum context length is %d tokens. However, you requested %d tokens. Please reduce the length of the messages or completion.", "type": "BadRequestError", "param": null, "code": 400}}`+
				"\n\ndata: [DONE]\n\n", limit, prompt)}
	case OverflowAnthropic:
		return Fault{Status: http.StatusBadRequest, Header: jsonHeader, Body: fmt.Sprintf(
			`{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: %d tokens > %d maximum"},"request_id":"req_parleydemo"}`,
			prompt, limit)}
	case OverflowDeepSeek:
		return jsonFault(http.StatusBadRequest, jsonHeader, fmt.Sprintf(
			"This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, 0 in the completion). Please reduce the length of the messages or completion.",
			limit, prompt, prompt), "invalid_request_error", "", "invalid_request_error")
	}
	return jsonFault(http.StatusBadRequest, jsonHeader, fmt.Sprintf(
		"This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.",
		limit, prompt), "invalid_request_error", "messages", "context_length_exceeded")
}

// names joins the names of a list of forms or shapes, for a usage line: "a|b|c".
func names[T ~string](list []T) string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = string(v)
	}
	return strings.Join(out, "|")
}

// contextCommand runs "/demo context N [FORM]" and "/demo context off".
func (s *Server) contextCommand(rest []string, bad func(string, ...any) (string, error)) (string, error) {
	if len(rest) == 1 && rest[0] == "off" {
		s.SetContext(0, "")
		return "demo: prompts of any length are accepted", nil
	}
	if len(rest) < 1 {
		return bad("give a token budget")
	}
	if len(rest) > 2 {
		return bad("too many arguments")
	}
	n, err := strconv.Atoi(rest[0])
	if err != nil || n <= 0 {
		return bad("bad token budget %q", rest[0])
	}
	form := OverflowOpenAI
	if len(rest) == 2 {
		form = Overflow(rest[1])
		if !slices.Contains(Overflows, form) {
			return bad("unknown form %q", rest[1])
		}
	}
	s.SetContext(n, form)
	return fmt.Sprintf("demo: prompts over %d tokens are rejected as %s does", n, form), nil
}
