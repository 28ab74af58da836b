// Package chat is the vocabulary every part of parley shares about a run: the messages sent,
// the events a run emits, token usage, the classification of a failure, a run's status, the one
// rule that turns a run's terminal event into its outcome, and the clock that every wait is
// given. It imports nothing of parley's and no Bubble Tea, go-openai or SQLite, so the
// database, the screen and print mode can all speak it.
package chat

import (
	"fmt"
	"strings"
	"time"
)

// EventKind says what an Event reports.
type EventKind int

// The kinds of event a run emits, in the order they can occur. A run emits exactly one
// terminal event (Finished, Failed or Cancelled) and then closes its channel.
const (
	// EventStarted: an attempt is being sent. Attempt counts from 1.
	EventStarted EventKind = iota
	// EventRetrying: Tier 1 is waiting Wait before attempt Attempt of MaxAttempts, because of Class.
	EventRetrying
	// EventDelta: answer text the model produced.
	EventDelta
	// EventUsage: token usage reported by the endpoint.
	EventUsage
	// EventFinished: the run succeeded.
	EventFinished
	// EventFailed: the run failed; Class says why and whether retrying can help.
	EventFailed
	// EventCancelled: the run's context was cancelled. Not a failure.
	EventCancelled
	// EventCompacted: the oldest turns, or the images of earlier messages, are left out of the
	// requests that follow, so the conversation fits the model's context (or, for images, a
	// model that cannot see); Omitted and OmittedImages count them. It comes before the first
	// request when the endpoint's context size is configured or images must go, or between an
	// overflow and the one re-run it allows.
	EventCompacted
	// EventReasoning: thinking text the model produced before (or instead of) its answer,
	// from whichever of the shapes the endpoint streams it in. It is output like a delta:
	// the first one ends Tier 1's retries.
	EventReasoning
	// EventToolCall: a piece of a tool call as the model streams it: Call holds the piece
	// (the first piece of call CallIndex has its ID and Function, then Arguments come in
	// fragments to be joined). It is output: the first one ends Tier 1's retries.
	EventToolCall
	// EventToolAsk: the whole call Call waits for the operator's answer on Answer (true:
	// run it; false: refuse it). Cancelling the run is the third answer.
	EventToolAsk
	// EventToolRunning: the tool of Call is being called (Result names it).
	EventToolRunning
	// EventToolResult: what became of Call, in Result: it is stored before this arrives,
	// and goes back to the model in the next request.
	EventToolResult
)

// Usage is the token count an endpoint reports for one request.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// ReasoningTokens is the part of CompletionTokens spent thinking, when the endpoint says.
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
	// Estimated is set when the endpoint reported no usage and parley estimated it (see
	// EstimateTokens).
	Estimated bool `json:"estimated,omitempty"`
}

// Event is one step of a run.
type Event struct {
	Kind EventKind
	// Text is the text of an EventDelta or EventReasoning.
	Text string
	// Attempt and MaxAttempts number the attempt of EventStarted and EventRetrying.
	Attempt, MaxAttempts int
	// GatewayRetries, on EventFailed, is how many times a gateway says it retried the last
	// request itself (-1: it retried, and did not say how often).
	GatewayRetries int
	// Wait is how long Tier 1 waits before the next attempt (EventRetrying).
	Wait time.Duration
	// Usage is set on EventUsage.
	Usage Usage
	// Class is set on EventFailed, and on EventRetrying for the failure being retried.
	Class Classification
	// FinishReason is the endpoint's finish_reason on EventFinished ("stop", "length", …).
	FinishReason string
	// Model is, on a terminal event, the model that answered as the endpoint named it in the
	// stream, when it did: it may differ from the one asked for (a dated snapshot, a router's
	// choice).
	Model string
	// Omitted is set on EventCompacted: how many messages of the conversation are left out;
	// OmittedImages how many images of earlier messages, which go before any message does.
	// ImagesUnseen says the images were left out because the model takes none.
	Omitted, OmittedImages int
	ImagesUnseen           bool
	// Thought is set by the history's recorder on the terminal event of a run that thought:
	// how long, from the request being sent until the last thinking, as it is stored.
	Thought time.Duration
	// SaidAt is set on an EventFailed that sent nothing because the provider had said, at
	// SaidAt, not to come back before Class.RetryAfterUntil (endpoint memory).
	SaidAt time.Time
	// BudgetSpent is set on an EventRetrying whose wait is for the retry budget every parley
	// shares: the retry goes at the end of Wait.
	BudgetSpent bool
	// Call, CallIndex, Result and Answer are set on the tool events (EventToolCall,
	// EventToolAsk, EventToolRunning, EventToolResult).
	Call      ToolCall
	CallIndex int
	Result    ToolResult
	Answer    chan<- bool
	// Calls are, on an EventFinished, the calls the model asked for when they are whole (by
	// finish_reason tool_calls, or by their content); a stream that ended any other way
	// carries none, so a call cut short is never run.
	Calls []ToolCall
	// StepLimit is set on the terminal event of a run that stopped at its limit of steps
	// (model calls), leaving the model's last calls unrun.
	StepLimit int
	// ToolCalls names, on a terminal event, the tools the model asked to call; Unreadable
	// counts the stream's lines that could not be read (and whose text, if any, is missing);
	// OtherChoices counts the choices besides the first that the endpoint sent unasked
	// (ignored).
	ToolCalls    []string
	Unreadable   int
	OtherChoices int
	// NotStored is set on a terminal event the history could not store in full (the run or
	// its text): what went wrong, its fix, and where the text is kept instead. The outcome
	// shown must then say it was not saved.
	NotStored string
}

// Add adds u to the usage summed so far; the sum is an estimate when any part is.
func (s *Usage) Add(u Usage) {
	s.PromptTokens += u.PromptTokens
	s.CompletionTokens += u.CompletionTokens
	s.ReasoningTokens += u.ReasoningTokens
	s.Estimated = s.Estimated || u.Estimated
}

// Terminal reports whether e ends its run.
func (e Event) Terminal() bool {
	return e.Kind == EventFinished || e.Kind == EventFailed || e.Kind == EventCancelled
}

// Message is one entry of the transcript sent to the model.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
	// Reasoning is the thinking stored with a reply. It is sent back only to an endpoint
	// whose profile asks for it (Endpoint.SendReasoning).
	Reasoning string `json:"reasoning,omitempty"`
	// Images are the images an operator message carries, sent after its text.
	Images []Image `json:"images,omitempty"`
	// Pinned is set on a message the operator pinned: compaction never leaves it out.
	Pinned bool `json:"pinned,omitempty"`
	// ToolCalls are the calls an assistant message asked for; ToolCallID is, on a RoleTool
	// message, the call whose result Content is.
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// Send is one request sent to an endpoint, as the retry budget counts them: a first attempt,
// or a retry that Tier 1 (or print mode's --wait) made by itself.
type Send struct {
	At    time.Time
	Retry bool
}

// EndpointKey names where requests go, as endpoint memory and pacing count them: the base URL,
// the model and the name of the key's variable (never the key), and the route behind a
// gateway (its routing headers and a profile's route_key; secrets only as a hash).
type EndpointKey struct {
	BaseURL, Model, KeyEnv, Route string
}

// Where is the base URL and the route, as the endpoint is stored and the retry budget counts
// its sends: every model behind one route shares one budget.
func (k EndpointKey) Where() string {
	if k.Route == "" {
		return k.BaseURL
	}
	return k.BaseURL + " " + k.Route
}

// FinishNote says why a reply that succeeded ended early, or "" when it ended as replies do:
// at the token limit, or there while still thinking, with no answer at all.
func FinishNote(finishReason, answer string) string {
	if finishReason == "tool_calls" {
		return "the model's last tool calls were not run"
	}
	if finishReason != "length" {
		return ""
	}
	if strings.TrimSpace(answer) == "" {
		return "stopped at the token limit while thinking — no answer"
	}
	return "stopped at the token limit"
}

// ThoughtOut is the failure of a reply that ended at the token limit while the model still
// thought: the endpoint ended it as a success, but there is no answer, and the same request
// would end the same way. Its message names the fix in config.toml, for profile ("" when
// flags alone chose the endpoint), whose max_tokens was sent as maxTokens (0: none, the
// endpoint's own limit applied).
func ThoughtOut(finishReason, answer string, maxTokens int, profile string) (Classification, bool) {
	if finishReason != "length" || strings.TrimSpace(answer) != "" {
		return Classification{}, false
	}
	where := "a profile"
	if profile != "" {
		where = "[profiles." + profile + "]"
	}
	fix := fmt.Sprintf("set max_tokens in %s of config.toml above the endpoint's own limit", where)
	if maxTokens > 0 {
		fix = fmt.Sprintf("raise max_tokens (%d) in %s of config.toml", maxTokens, where)
	}
	return NewClassification(EmptyResponse, FinishNote(finishReason, answer)+": "+fix+", or lower its reasoning_effort"), true
}

// RunNotes are what the end of a run has to say beyond its outcome: the tools the model asked
// for that were not run (the run reached its limit of steps, or no tools were on), choices
// besides the first that were ignored, and stream lines that could not be read. turnOn says
// how tools are turned on where the run was made ("/tools turns them on").
func RunNotes(ev Event, turnOn string) []string {
	var notes []string
	switch calls := strings.Join(ev.ToolCalls, ", "); {
	case ev.StepLimit > 0 && len(ev.ToolCalls) == 1:
		notes = append(notes, fmt.Sprintf("stopped after %d steps, the limit of a run: the model's last call (%s) was not run", ev.StepLimit, calls))
	case ev.StepLimit > 0:
		notes = append(notes, fmt.Sprintf("stopped after %d steps, the limit of a run: the model's last calls (%s) were not run", ev.StepLimit, calls))
	case len(ev.Calls) > 0:
		notes = append(notes, "the model asked to call "+calls+", which was not run: no tools are on ("+turnOn+")")
	}
	if n := ev.OtherChoices; n == 1 {
		notes = append(notes, "the endpoint sent 1 more choice than the one asked for; only the first is shown and kept")
	} else if n > 1 {
		notes = append(notes, fmt.Sprintf("the endpoint sent %d more choices than the one asked for; only the first is shown and kept", n))
	}
	if n := ev.Unreadable; n == 1 {
		notes = append(notes, "1 line of the stream could not be read; what it held is missing")
	} else if n > 1 {
		notes = append(notes, fmt.Sprintf("%d lines of the stream could not be read; what they held is missing", n))
	}
	return notes
}

// Role says who wrote a message.
type Role string

// The roles of a message.
const (
	// RoleUser is the operator. Operator messages are never changed or deleted.
	RoleUser Role = "user"
	// RoleAssistant is a reply, written by exactly one run.
	RoleAssistant Role = "assistant"
	// RoleSystem is a system prompt: sent first to the model for the operator messages after
	// it.
	RoleSystem Role = "system"
	// RoleTool is a tool's result, sent back to the model after the call that asked for it.
	RoleTool Role = "tool"
)

// Remaining is what a provider said is left of its rate limits after a response, and when each
// limit refills. Pacing reads it to hold back a send the provider would refuse.
type Remaining struct {
	// Requests and Tokens are what is left; -1 when the provider did not say.
	Requests, Tokens int
	// RequestLimit and TokenLimit are the limits they count down from; 0 when not said.
	RequestLimit, TokenLimit int
	// RequestsReset and TokensReset are when each refills; zero when not said.
	RequestsReset, TokensReset time.Time
	// SaidAt is when the provider said it.
	SaidAt time.Time
}
