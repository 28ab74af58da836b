package agent

import (
	"regexp"
	"strings"
	"time"
)

// Deadlines for the first word of a reply and for a stream gone quiet after it.
const (
	// DefaultReasoningFirstDeltaTimeout is the first-delta deadline of a reasoning model,
	// which may think in silence for minutes before it sends anything.
	DefaultReasoningFirstDeltaTimeout = 10 * time.Minute
	// DefaultStreamIdleTimeout ends a stream that sends no output for this long after its
	// first delta, keep-alives or not: a hung server, a stopped one that keeps the socket, or a
	// connection left half-open by a network change.
	DefaultStreamIdleTimeout = 120 * time.Second
)

// openAIReasoningNames matches OpenAI's reasoning models, the o-series and gpt-5, by the last
// part of the name (after a provider prefix such as "openai/").
var openAIReasoningNames = regexp.MustCompile(`^(o[134]([-.:_]|$)|gpt-5)`)

// reasoningNames matches the other model names known to think before they answer, by the last
// part of the name (after a provider prefix such as "deepseek/"): DeepSeek's reasoner and R1,
// QwQ, Qwen3, gpt-oss and any *thinking* model.
var reasoningNames = regexp.MustCompile(`^(deepseek-reasoner|qwq|qwen3|gpt-oss)|(^|[-_.:])r1([-_.:]|$)|thinking`)

// inlineThinkerNames matches the reasoning models that local servers run with a chat template
// that may open `<think>` in the prompt, so that the reply starts inside the thinking and
// only a bare `</think>` ends it: R1 and its distills, QwQ, Qwen3 and *thinking* models.
var inlineThinkerNames = regexp.MustCompile(`^(qwq|qwen3)|(^|[-_.:])r1([-_.:]|$)|thinking`)

// baseName is a model name without its provider prefix, lower case.
func baseName(model string) string {
	model = strings.ToLower(model)
	return model[strings.LastIndexByte(model, '/')+1:]
}

// IsReasoningModel reports whether model is one parley knows to think before it answers.
func IsReasoningModel(model string) bool {
	return isOpenAIReasoning(model) || reasoningNames.MatchString(baseName(model))
}

// isOpenAIReasoning reports whether model is one of OpenAI's reasoning models, under any
// provider prefix.
func isOpenAIReasoning(model string) bool { return openAIReasoningNames.MatchString(baseName(model)) }

// reasoning reports whether the endpoint's model thinks: as its profile says, or by its name.
func (ep Endpoint) reasoning() bool {
	if ep.Reasoning != nil {
		return *ep.Reasoning
	}
	return IsReasoningModel(ep.Model)
}

// inlineThinker reports whether a reply from the endpoint's model may start inside its
// thinking, ended by a bare `</think>`.
func (ep Endpoint) inlineThinker() bool {
	if ep.Reasoning != nil && !*ep.Reasoning {
		return false
	}
	return inlineThinkerNames.MatchString(baseName(ep.Model))
}

// FirstDeltaDeadline is how long a request may wait for its first output: as the profile
// sets it, else ten minutes for a reasoning model and 90 seconds for any other.
func (ep Endpoint) FirstDeltaDeadline() time.Duration {
	switch {
	case ep.FirstDeltaTimeout > 0:
		return ep.FirstDeltaTimeout
	case ep.reasoning():
		return DefaultReasoningFirstDeltaTimeout
	}
	return DefaultFirstDeltaTimeout
}

// StreamIdleDeadline is how long a stream may send nothing after its first output.
func (ep Endpoint) StreamIdleDeadline() time.Duration {
	if ep.StreamIdleTimeout > 0 {
		return ep.StreamIdleTimeout
	}
	return DefaultStreamIdleTimeout
}

// completionLimitField reports whether the endpoint's model takes its token limit as
// max_completion_tokens: OpenAI's reasoning models refuse max_tokens (and go-openai refuses
// to send it to them), while most other servers know only max_tokens.
func (ep Endpoint) completionLimitField() bool { return isOpenAIReasoning(ep.Model) }
