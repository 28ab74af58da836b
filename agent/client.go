// Package agent talks to OpenAI-compatible chat endpoints. A run is one request for a reply,
// streamed as an ordered channel of typed events, with Tier 1's automatic retries inside it:
// only before the first content delta, within retry.Policy, honouring the server's advice.
package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"sync/atomic"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"parley/agent/chat"
	"parley/retry"
)

// Default timeouts, used when an Endpoint leaves one zero.
const (
	DefaultConnectTimeout    = 10 * time.Second
	DefaultHeaderTimeout     = 60 * time.Second
	DefaultFirstDeltaTimeout = 90 * time.Second
)

// Endpoint is a resolved OpenAI-compatible endpoint: where to send, with what model and key.
type Endpoint struct {
	// Name is the profile or preset the endpoint came from, or "demo".
	Name    string
	BaseURL string
	Model   string
	// APIKey is the resolved key; empty when the endpoint is called without one.
	APIKey string
	// KeyEnv names the environment variable the key is read from.
	KeyEnv string
	// KeyErr, when set, says why the key could not be resolved. Every run then fails as
	// credentials_unresolved without sending anything.
	KeyErr string
	// Headers are extra request headers (for example OpenRouter's X-Title).
	Headers map[string]string
	// Demo is set for parley's built-in offline demo endpoint.
	Demo bool
	// ConnectTimeout bounds the TCP (and TLS) connect; HeaderTimeout the wait for response
	// headers; FirstDeltaTimeout the wait from sending until the first output (zero: see
	// FirstDeltaDeadline); StreamIdleTimeout a silence after it (zero: 120 s).
	ConnectTimeout, HeaderTimeout, FirstDeltaTimeout, StreamIdleTimeout time.Duration
	// Reasoning says whether the model thinks before it answers; nil leaves it to the model's
	// name (IsReasoningModel).
	Reasoning *bool
	// SendReasoning sends the stored thinking of earlier replies back with them, for the
	// providers that require it; otherwise thinking is never sent back.
	SendReasoning bool
	// MaxTokens, when positive, limits the reply's tokens, thinking included.
	MaxTokens int
	// ReasoningEffort, when set, is sent as reasoning_effort ("low", "medium" or "high").
	ReasoningEffort string
	// Temperature and TopP, when set, are sent as they are.
	Temperature, TopP *float64
	// ContextTokens, when positive, is the model's context window: a conversation whose
	// estimate passes three quarters of it is compacted before it is sent.
	ContextTokens int
}

// Client runs requests against one Endpoint. It is safe for concurrent use.
type Client struct {
	ep     Endpoint
	clock  chat.Clock
	policy retry.Policy
	api    *openai.Client
	// noStreamOptions is set once the endpoint has rejected stream_options, so that later
	// requests leave it out. Copies made by WithModel share it.
	noStreamOptions *atomic.Bool
	// store, when set, shares endpoint memory and the retry budget with every parley (see
	// EndpointStore); force sends even while endpoint memory holds the endpoint back.
	store  EndpointStore
	force  bool
	budget retry.RetryBudget
	// retryOf, when set, makes every run an automatic retry of that failure (AsRetryOf).
	retryOf *chat.Classification
	// retryDeadline, when set, is when Tier 1's waits must have ended (RetriesUntil).
	retryDeadline time.Time
}

// NewClient returns a Client for ep. Tier 1 waits on clock, following policy.
func NewClient(ep Endpoint, clock chat.Clock, policy retry.Policy) *Client {
	if ep.ConnectTimeout <= 0 {
		ep.ConnectTimeout = DefaultConnectTimeout
	}
	if ep.HeaderTimeout <= 0 {
		ep.HeaderTimeout = DefaultHeaderTimeout
	}
	base := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: ep.ConnectTimeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   ep.ConnectTimeout,
		ResponseHeaderTimeout: ep.HeaderTimeout,
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
	}
	cfg := openai.DefaultConfig(ep.APIKey)
	cfg.BaseURL = ep.BaseURL
	cfg.HTTPClient = &http.Client{Transport: &recordingTransport{base: base, headers: ep.Headers}}
	// Keep-alive comments are not errors; the first-delta deadline is what ends a silent stream.
	cfg.EmptyMessagesLimit = math.MaxUint32
	return &Client{ep: ep, clock: clock, policy: policy, api: openai.NewClientWithConfig(cfg),
		noStreamOptions: new(atomic.Bool), budget: retry.DefaultRetryBudget()}
}

// Endpoint returns the endpoint the client sends to.
func (c *Client) Endpoint() Endpoint { return c.ep }

// WithModel returns a client for the same endpoint with another model.
func (c *Client) WithModel(model string) *Client {
	cc := *c
	cc.ep.Model = model
	return &cc
}

// Stream sends msgs and streams the reply. The channel carries EventStarted for each request
// sent, EventRetrying before each Tier 1 wait, EventCompacted when older turns are left out,
// the deltas and usage, and exactly one terminal event, then closes. Cancelling ctx cancels
// the run at once, including a Tier 1 wait, and ends it with EventCancelled.
//
// Two requests inside a run are not Tier 1 attempts, and each happens at most once: when the
// endpoint rejects stream_options the request is sent again without it; and when it fails as
// context_overflow before any reply text, the oldest turns are left out (see Compact) and the
// conversation is sent once more, with Tier 1 attempts of its own. A second overflow fails the
// run as context_overflow, which is not retryable.
//
// When the endpoint reports no usage, a run that produced text reports an estimate of it
// (EstimateTokens, EstimateText) with Usage.Estimated set.
func (c *Client) Stream(ctx context.Context, msgs []chat.Message) <-chan chat.Event {
	return c.stream(ctx, msgs, nil)
}

// stream is Stream with a check made before each request is sent: when it returns a
// classification the run fails with it, and the request is not sent.
func (c *Client) stream(ctx context.Context, msgs []chat.Message, check func([]chat.Message) *chat.Classification) <-chan chat.Event {
	out := make(chan chat.Event, 64)
	go c.runAttempts(ctx, msgs, check, out)
	return out
}

func (c *Client) runAttempts(ctx context.Context, all []chat.Message, check func([]chat.Message) *chat.Classification, out chan<- chat.Event) {
	defer close(out)
	maxAttempts := c.policy.MaxAttempts
	if c.ep.KeyErr != "" {
		out <- chat.Event{Kind: chat.EventFailed, Class: chat.Classification{
			Class: chat.CredentialsUnresolved, Label: chat.Label(chat.CredentialsUnresolved), Message: c.ep.KeyErr,
		}}
		return
	}
	// msgs is what is sent: all, or all without its oldest turns once compacted.
	msgs, omitted := all, 0
	if c.ep.ContextTokens > 0 {
		if msgs, omitted = Compact(all, preSendBudget(c.ep.ContextTokens)); omitted > 0 {
			out <- chat.Event{Kind: chat.EventCompacted, Omitted: omitted}
		}
	}
	if cls, saidAt, held := c.heldBack(); held {
		out <- chat.Event{Kind: chat.EventFailed, Class: cls, SaidAt: saidAt, MaxAttempts: maxAttempts}
		return
	}
	rerun := false // the one re-run after an overflow has been made
	withUsage := !c.noStreamOptions.Load()
	retrying := false // the attempt about to be sent is a retry, taken from the budget
	if c.retryOf != nil {
		ok, cancelled := c.takeRetry(ctx, out, chat.Event{Kind: chat.EventRetrying, Attempt: 1, MaxAttempts: maxAttempts, Class: *c.retryOf})
		switch {
		case cancelled:
			out <- chat.Event{Kind: chat.EventCancelled}
			return
		case !ok:
			out <- chat.Event{Kind: chat.EventFailed, Class: *c.retryOf, MaxAttempts: maxAttempts}
			return
		}
		retrying = true
	}
	for attempt := 1; ; attempt++ {
		if check != nil {
			if cls := check(msgs); cls != nil {
				out <- chat.Event{Kind: chat.EventFailed, Class: *cls, Attempt: attempt - 1, MaxAttempts: maxAttempts}
				return
			}
		}
		if !retrying {
			c.noteFirstSend()
		}
		out <- chat.Event{Kind: chat.EventStarted, Attempt: attempt, MaxAttempts: maxAttempts}
		res := c.attempt(ctx, msgs, withUsage, out)
		if res.delivered && !res.gotUsage {
			out <- chat.Event{Kind: chat.EventUsage, Usage: chat.Usage{
				PromptTokens: EstimateTokens(msgs), CompletionTokens: runeTokens(res.deliveredRunes), Estimated: true,
			}}
		}
		switch {
		case ctx.Err() != nil:
			out <- chat.Event{Kind: chat.EventCancelled}
			return
		case res.failure == nil:
			c.noteSuccess()
			out <- chat.Event{Kind: chat.EventFinished, FinishReason: res.finishReason}
			return
		case withUsage && rejectsStreamOptions(*res.failure):
			slog.Info("endpoint rejects stream_options; sending again without it", "status", res.failure.Status)
			c.noStreamOptions.Store(true)
			withUsage = false
			attempt-- // the same attempt, sent again
			retrying = false
			continue
		}
		cls := retry.Classify(*res.failure)
		if cls.Class == chat.ContextOverflow && !res.delivered && !rerun {
			limit, requested := parseOverflow(res.failure.Body, cls.Message)
			kept, n := Compact(all, compactBudget(msgs, limit, requested))
			slog.Info("context overflow", "limit", limit, "requested", requested, "estimate", EstimateTokens(msgs),
				"omitted", n, "omitted_before", omitted)
			if n > omitted {
				msgs, omitted, rerun = kept, n, true
				out <- chat.Event{Kind: chat.EventCompacted, Omitted: omitted}
				attempt, retrying = 0, false // a new request, with Tier 1 attempts of its own
				continue
			}
		}
		c.noteFailure(cls)
		d := c.policy.Decide(cls, attempt, res.delivered, c.clock.Now())
		slog.Info("attempt failed", "attempt", attempt, "status", res.failure.Status, "class", cls.Class,
			"retryable", cls.Retryable, "retry", d.Retry, "wait", d.Wait, "handoff", d.HandOff, "message", cls.Message)
		if !d.Retry || !c.retryDeadline.IsZero() && c.clock.Now().Add(d.Wait).After(c.retryDeadline) {
			cls = c.nameTheFix(cls, *res.failure, res.url)
			out <- chat.Event{Kind: chat.EventFailed, Class: cls, Attempt: attempt, MaxAttempts: maxAttempts}
			return
		}
		next := chat.Event{Kind: chat.EventRetrying, Attempt: attempt + 1, MaxAttempts: maxAttempts, Wait: d.Wait, Class: cls}
		out <- next
		select {
		case <-ctx.Done():
			out <- chat.Event{Kind: chat.EventCancelled}
			return
		case <-c.clock.After(d.Wait):
		}
		ok, cancelled := c.takeRetry(ctx, out, next)
		switch {
		case cancelled:
			out <- chat.Event{Kind: chat.EventCancelled}
			return
		case !ok:
			out <- chat.Event{Kind: chat.EventFailed, Class: cls, Attempt: attempt, MaxAttempts: maxAttempts}
			return
		}
		retrying = true
	}
}

// result is how one attempt ended: failure is nil when the reply finished.
type result struct {
	failure *retry.Failure
	// url is where the attempt's request went.
	url          string
	delivered    bool
	finishReason string
	// gotUsage is set when the endpoint reported usage; deliveredRunes counts the characters
	// of the text delivered, for an estimate when it did not.
	gotUsage       bool
	deliveredRunes int
}

// rejectsStreamOptions reports whether f is an endpoint refusing the stream_options field,
// which some OpenAI-compatible servers do not know.
func rejectsStreamOptions(f retry.Failure) bool {
	return f.Phase == retry.Status && (f.Status == http.StatusBadRequest || f.Status == http.StatusUnprocessableEntity) &&
		bytes.Contains(bytes.ToLower(f.Body), []byte("stream_options"))
}

// chunk is the part of a streamed chat.completion.chunk parley reads. Error and Type catch
// error frames that arrive as ordinary data lines. Thinking arrives as reasoning_content or
// reasoning (go-openai's own chunk type knows only the first; parley reads the raw chunk).
type chunk struct {
	Choices []struct {
		Delta struct {
			Content          string `json:"content"`
			ReasoningContent string `json:"reasoning_content"`
			Reasoning        string `json:"reasoning"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens            int `json:"prompt_tokens"`
		CompletionTokens        int `json:"completion_tokens"`
		CompletionTokensDetails *struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"usage"`
	Error   json.RawMessage `json:"error"`
	Type    string          `json:"type"`
	Object  string          `json:"object"`
	Message string          `json:"message"`
}

// isError reports whether a data payload is an error frame rather than a chunk: an "error"
// member, an error event type, or a bare error object (a message and no choices).
func (ch *chunk) isError() bool {
	return len(ch.Error) > 0 && string(ch.Error) != "null" || ch.Type == "error" || ch.Object == "error" ||
		ch.Choices == nil && ch.Usage == nil && ch.Message != ""
}

// usage is the chunk's usage as parley counts it: thinking is output. Most endpoints count
// reasoning_tokens inside completion_tokens; one that reports more thinking than output
// counted it apart, and it is added.
func (ch *chunk) usage() chat.Usage {
	u := chat.Usage{PromptTokens: ch.Usage.PromptTokens, CompletionTokens: ch.Usage.CompletionTokens}
	if d := ch.Usage.CompletionTokensDetails; d != nil {
		u.ReasoningTokens = d.ReasoningTokens
		if u.ReasoningTokens > u.CompletionTokens {
			u.CompletionTokens += u.ReasoningTokens
		}
	}
	return u
}

// request is the chat completion request for msgs, with the endpoint's limits and effort sent
// in the fields its model takes.
func (c *Client) request(msgs []chat.Message, withUsage bool) openai.ChatCompletionRequest {
	req := openai.ChatCompletionRequest{
		Model:           c.ep.Model,
		Messages:        c.toOpenAI(msgs),
		Stream:          true,
		ReasoningEffort: c.ep.ReasoningEffort,
	}
	if c.ep.MaxTokens > 0 {
		if c.ep.completionLimitField() {
			req.MaxCompletionTokens = c.ep.MaxTokens
		} else {
			req.MaxTokens = c.ep.MaxTokens
		}
	}
	// go-openai leaves out a zero; the smallest float32 is how a set 0 is sent as 0.
	if t := c.ep.Temperature; t != nil {
		req.Temperature = max(float32(*t), math.SmallestNonzeroFloat32)
	}
	if t := c.ep.TopP; t != nil {
		req.TopP = float32(*t)
	}
	if withUsage {
		req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	return req
}

func (c *Client) attempt(ctx context.Context, msgs []chat.Message, withUsage bool, out chan<- chat.Event) result {
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	var capt capture

	// The first-delta deadline runs from the send until the first output, answer or thinking;
	// comments and role-only chunks do not extend it. From the first output on, the idle
	// deadline runs instead, and any bytes at all, comments included, reset it. Both are
	// network deadlines, so they run on real time.
	var expired, idled atomic.Bool
	deadline := time.AfterFunc(c.ep.FirstDeltaDeadline(), func() {
		expired.Store(true)
		cancel()
	})
	defer deadline.Stop()
	idleFor := c.ep.StreamIdleDeadline()
	var idle *time.Timer
	defer func() {
		if idle != nil {
			idle.Stop()
		}
	}()
	capt.onBytes = func() {
		if idle != nil {
			idle.Reset(idleFor)
		}
	}
	actx = withCapture(actx, &capt)

	stream, err := c.api.CreateChatCompletionStream(actx, c.request(msgs, withUsage))
	if err != nil {
		f := &retry.Failure{Now: c.clock.Now(), Err: err}
		switch {
		case capt.status != 0:
			f.Phase, f.Status, f.Header, f.Body = retry.Status, capt.status, capt.header, capt.body.Bytes()
		case expired.Load():
			f.Phase, f.Kind = retry.BeforeHeaders, retry.NetTimeoutFirstDelta
			f.Err = fmt.Errorf("nothing within %s", c.ep.FirstDeltaDeadline())
		default:
			f.Phase = retry.BeforeHeaders
		}
		return result{failure: f, url: capt.url}
	}
	defer stream.Close()

	res := result{url: capt.url}
	split := thinkSplitter{holdBare: c.ep.inlineThinker()}
	emit := func(kind chat.EventKind, text string) {
		if text != "" {
			res.deliveredRunes += utf8.RuneCountInString(text)
			out <- chat.Event{Kind: kind, Text: text}
		}
	}
	// output takes the text of a chunk: the first of it is the commit point (no retry after
	// it) and starts the idle deadline.
	output := func(reasoning, content string) {
		if reasoning == "" && content == "" {
			return
		}
		if !res.delivered {
			res.delivered = true
			deadline.Stop()
			idle = time.AfterFunc(idleFor, func() {
				idled.Store(true)
				cancel()
			})
		}
		if reasoning != "" {
			// Thinking in a field of its own means the content is the answer, tags or not.
			if r, a := split.end(true); r != "" || a != "" {
				emit(chat.EventReasoning, r)
				emit(chat.EventDelta, a)
			}
			split.state = thinkAnswer
			emit(chat.EventReasoning, reasoning)
		}
		r, a := split.split(content)
		emit(chat.EventReasoning, r)
		emit(chat.EventDelta, a)
	}
	// end hands on what the splitter holds when the attempt ends, however it ends.
	end := func(r result) result {
		rs, a := split.end(r.failure != nil || ctx.Err() != nil)
		emit(chat.EventReasoning, rs)
		emit(chat.EventDelta, a)
		return r
	}
	inStream := func(kind retry.NetKind, body []byte, err error) result {
		phase := retry.InStreamBeforeDelta
		if res.delivered {
			phase = retry.InStreamAfterDelta
		}
		res.failure = &retry.Failure{Phase: phase, Status: capt.status, Header: capt.header, Body: body, Err: err, Kind: kind, Now: c.clock.Now()}
		return end(res)
	}
	for {
		raw, err := stream.RecvRaw()
		if err != nil {
			if ctx.Err() != nil {
				return end(res)
			}
			if frame, ok := retry.StreamError(capt.frames.Bytes()); ok {
				return inStream(retry.NetUnknown, frame, err)
			}
			switch {
			case expired.Load():
				return inStream(retry.NetTimeoutFirstDelta, nil, fmt.Errorf("nothing within %s", c.ep.FirstDeltaDeadline()))
			case idled.Load():
				return inStream(retry.NetStreamIdle, nil, fmt.Errorf("no data for %s", idleFor))
			case errors.Is(err, io.EOF) && (capt.done || res.finishReason != ""):
				if !res.delivered {
					return inStream(retry.NetEmpty, nil, nil)
				}
				return end(res)
			case errors.Is(err, io.EOF):
				// Neither [DONE] nor a finish_reason: the stream was cut.
				return inStream(retry.NetCut, nil, io.ErrUnexpectedEOF)
			default:
				return inStream(retry.NetCut, nil, err)
			}
		}
		var ch chunk
		if err := json.Unmarshal(raw, &ch); err != nil {
			continue
		}
		if ch.isError() {
			return inStream(retry.NetUnknown, raw, nil)
		}
		for _, choice := range ch.Choices {
			d := choice.Delta
			output(d.ReasoningContent+d.Reasoning, d.Content)
			if choice.FinishReason != "" {
				res.finishReason = choice.FinishReason
				if choice.FinishReason == "content_filter" {
					return inStream(retry.NetUnknown, raw, nil)
				}
			}
		}
		if ch.Usage != nil {
			res.gotUsage = true
			out <- chat.Event{Kind: chat.EventUsage, Usage: ch.usage()}
		}
	}
}

// toOpenAI converts msgs for the request. Stored thinking goes back only to an endpoint whose
// profile asks for it: most reject it, or are only confused by it.
func (c *Client) toOpenAI(msgs []chat.Message) []openai.ChatCompletionMessage {
	out := make([]openai.ChatCompletionMessage, len(msgs))
	for i, m := range msgs {
		out[i] = openai.ChatCompletionMessage{Role: m.Role, Content: m.Content}
		if c.ep.SendReasoning {
			out[i].ReasoningContent = m.Reasoning
		}
	}
	return out
}
