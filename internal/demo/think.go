package demo

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// ThinkShape names how a reply's thinking arrives, as one kind of server sends it.
type ThinkShape string

// The thinking shapes, after what real servers stream.
const (
	// ThinkReasoningContent sends thinking in delta.reasoning_content beside "content":null,
	// as DeepSeek's API does (llama.cpp, vLLM and DashScope use the same field).
	ThinkReasoningContent ThinkShape = "reasoning_content"
	// ThinkReasoning sends thinking in delta.reasoning beside "content":"", as OpenRouter does
	// (Ollama and recent vLLM use the same field).
	ThinkReasoning ThinkShape = "reasoning"
	// ThinkTags sends thinking inline at the start of the content, between <think> and
	// </think>, the tags in chunks of their own as a tokenizer splits them.
	ThinkTags ThinkShape = "tags"
	// ThinkBare is ThinkTags without the opening <think>, which a chat template put in the
	// prompt: the content starts with the thinking and only </think> marks its end.
	ThinkBare ThinkShape = "bare"
	// ThinkSilent thinks without sending anything: the role chunk, then silence for
	// ThinkFor, then the answer, as OpenAI's reasoning models do. Only the usage shows it.
	ThinkSilent ThinkShape = "silent"
)

// ThinkShapes lists every thinking shape.
var ThinkShapes = []ThinkShape{ThinkReasoningContent, ThinkReasoning, ThinkTags, ThinkBare, ThinkSilent}

// defaultThinkFor is how long /demo think and /demo thinkonly think.
const defaultThinkFor = 3 * time.Second

// Thinking returns the demo's default thinking about a conversation: a few sentences of
// reasoning about its last user message, the same for the same messages.
func Thinking(msgs []Message) string {
	opening := "The user sent an empty message."
	if q := lastUser(msgs); strings.TrimSpace(q) != "" {
		opening = "The user asks about “" + quote(q) + "”."
	}
	return opening + " First, recall what this endpoint is: parley's offline demo, with no model behind it. " +
		"Let me check whether the question is one it has a prepared answer for, such as greetings, keys, " +
		"retries, code or the /demo commands.\n\nIf not, the honest reply says so and suggests a real " +
		"endpoint. Keep the answer short and friendly."
}

// The delta members that come before a chunk's text, ending in the text's key.
const (
	contentField          = `"content":`
	reasoningContentField = `"content":null,"reasoning_content":`
	reasoningField        = `"content":"","reasoning":`
)

// piece is one chunk of text a reply sends.
type piece struct {
	field    string // the delta members before the text, such as contentField
	text     string
	thinking bool
}

// thinkPieces returns the chunks that carry thought in shape: none for silent thinking. An
// unfinished thought in tags or bare shape never reaches its </think>.
func thinkPieces(shape ThinkShape, thought string, unfinished bool) []piece {
	field := contentField
	toks := appendTokens(nil, thought)
	switch shape {
	case ThinkSilent:
		return nil
	case ThinkReasoningContent:
		field = reasoningContentField
	case ThinkReasoning:
		field = reasoningField
	case ThinkTags:
		toks = append([]string{"<think>", "\n"}, toks...)
	}
	if (shape == ThinkTags || shape == ThinkBare) && !unfinished {
		toks = append(toks, "\n", "</think>", "\n\n")
	}
	ps := make([]piece, len(toks))
	for i, t := range toks {
		ps[i] = piece{field: field, text: t, thinking: true}
	}
	return ps
}

// answerPieces returns the chunks of an answer.
func answerPieces(toks []string) []piece {
	ps := make([]piece, len(toks))
	for i, t := range toks {
		ps[i] = piece{field: contentField, text: t}
	}
	return ps
}

// spread returns the wait before thinking chunk k of n so that the n waits add up to total
// exactly.
func spread(total time.Duration, n, k int) time.Duration {
	d := total / time.Duration(n)
	if time.Duration(k) < total%time.Duration(n) {
		d++
	}
	return d
}

// check reports a fault the server cannot act on: a misspelt shape would otherwise stream no
// thinking and pass unnoticed.
func (f Fault) check() error {
	if f.Think != "" && !slices.Contains(ThinkShapes, f.Think) {
		return fmt.Errorf("unknown think shape %q; one of %s", f.Think, names(ThinkShapes))
	}
	return nil
}

// thinkCommand runs "/demo think SHAPE [DURATION]" and "/demo thinkonly [SHAPE]".
func (s *Server) thinkCommand(name string, rest []string, bad func(string, ...any) (string, error)) (string, error) {
	f := Fault{Think: ThinkReasoningContent, ThinkFor: defaultThinkFor}
	if name == "thinkonly" {
		if len(rest) > 1 {
			return bad("give at most a shape")
		}
		f.ThinkOnly, f.Finish = true, "length"
	} else if len(rest) < 1 {
		return bad("give a shape")
	} else if len(rest) > 2 {
		return bad("too many arguments")
	}
	if len(rest) > 0 {
		f.Think = ThinkShape(rest[0])
		if f.check() != nil {
			return bad("unknown shape %q", rest[0])
		}
	}
	if len(rest) == 2 {
		d, err := time.ParseDuration(rest[1])
		if err != nil || d <= 0 {
			return bad("bad duration %q", rest[1])
		}
		f.ThinkFor = d
	}
	s.Push(f)
	how := shapeWords[f.Think]
	if f.ThinkOnly {
		return fmt.Sprintf("demo: the next reply thinks for %s %s, then stops with finish_reason length and no answer", f.ThinkFor, how), nil
	}
	return fmt.Sprintf("demo: the next reply thinks for %s %s, then answers", f.ThinkFor, how), nil
}

// shapeWords says how each shape sends thinking, for the commands' confirmations.
var shapeWords = map[ThinkShape]string{
	ThinkReasoningContent: "in reasoning_content deltas",
	ThinkReasoning:        "in reasoning deltas",
	ThinkTags:             "inside <think> tags",
	ThinkBare:             "before a lone </think>",
	ThinkSilent:           "in silence",
}
