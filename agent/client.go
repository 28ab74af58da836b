// Package agent talks to OpenAI-compatible chat endpoints. A run is one request for a reply,
// streamed as an ordered channel of typed events, with Tier 1's automatic retries inside it:
// only before the first output (answer or thinking), within retry.Policy, honouring the server's advice.
package agent

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"parley/internal/chat"
	"parley/retry"
)

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
	// classifier classifies failures, the operator's rules first (WithRules).
	classifier retry.Classifier
	// log is where attempts and endpoint-store trouble are logged (WithLogger); never the
	// terminal.
	log *slog.Logger
	// http sends what is not a chat completion (what the server says of its model); facts
	// keeps, per model, what it said. Copies made by WithModel share both.
	http  *http.Client
	facts *factsCache
	// tools are offered in every request (WithTools); toolTokens estimates their schemas,
	// which every request carries besides its messages.
	tools      []openai.Tool
	toolTokens int
	// redact takes the endpoint's secrets out of everything the server says (Redactor).
	redact *chat.Redactor
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
		Proxy:                  ep.Network.proxy,
		OnProxyConnectResponse: refusedConnect,
		DialContext: (&net.Dialer{Timeout: ep.ConnectTimeout, KeepAlive: 30 * time.Second,
			Resolver: ep.Network.resolver}).DialContext,
		TLSHandshakeTimeout:   ep.ConnectTimeout,
		ResponseHeaderTimeout: ep.HeaderTimeout,
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
	}
	cfg := openai.DefaultConfig(ep.APIKey)
	cfg.BaseURL = ep.BaseURL
	httpc := &http.Client{Transport: &recordingTransport{base: base, headers: ep.Headers},
		// A redirect would turn the POST into an empty GET, sent with the key: the 3xx is the
		// answer, and the fix names where it points (nameTheFix).
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	cfg.HTTPClient = httpc
	// Keep-alive comments are not errors; the first-delta deadline is what ends a silent stream.
	cfg.EmptyMessagesLimit = math.MaxUint32
	return &Client{ep: ep, clock: clock, policy: policy, api: openai.NewClientWithConfig(cfg),
		noStreamOptions: new(atomic.Bool), budget: retry.DefaultRetryBudget(), log: slog.New(slog.DiscardHandler),
		http: httpc, facts: &factsCache{byModel: map[string]ModelFacts{}},
		redact: chat.NewRedactor(ep.Secrets()...)}
}

// WithLogger returns a client that logs its attempts to l, which a caller gives its own so
// that two clients in one process never log into each other's files. Without it, nothing is
// logged.
func (c *Client) WithLogger(l *slog.Logger) *Client {
	cc := *c
	cc.log = l
	return &cc
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
// classification the run fails with it, and the request is not sent. Every event leaves
// through the redactor, so that no secret the server echoes reaches what parley shows,
// stores, logs or sends on.
func (c *Client) stream(ctx context.Context, msgs []chat.Message, check func([]chat.Message) *chat.Classification) <-chan chat.Event {
	out := make(chan chat.Event, 64)
	go c.runAttempts(ctx, msgs, check, out)
	return c.redact.Events(out)
}

func (c *Client) runAttempts(ctx context.Context, all []chat.Message, check func([]chat.Message) *chat.Classification, out chan<- chat.Event) {
	defer close(out)
	maxAttempts := c.policy.MaxAttempts
	if c.ep.KeyErr != "" {
		out <- chat.Event{Kind: chat.EventFailed, Class: chat.NewClassification(chat.CredentialsUnresolved, c.ep.KeyErr)}
		return
	}
	all = c.continuation(ctx, all)
	all, unseen, refused := c.seeable(ctx, all)
	if refused != nil {
		out <- chat.Event{Kind: chat.EventFailed, Class: *refused, MaxAttempts: maxAttempts}
		return
	}
	if unseen > 0 {
		out <- chat.Event{Kind: chat.EventCompacted, OmittedImages: unseen, ImagesUnseen: true}
	}
	// msgs is what is sent: what the plan keeps of all, its oldest images and turns left out
	// when they do not fit the window.
	plan := NewPlan(all, c.window(ctx, all), "", c.toolTokens)
	msgs, omitted, images := plan.Sent(all), plan.Omitted, plan.Images
	if omitted+images > 0 {
		out <- chat.Event{Kind: chat.EventCompacted, Omitted: omitted, OmittedImages: images}
	}
	if cls, saidAt, held := c.heldBack(msgs); held {
		out <- chat.Event{Kind: chat.EventFailed, Class: cls, SaidAt: saidAt, MaxAttempts: maxAttempts}
		return
	}
	rerun := false // the one re-run after an overflow has been made
	withUsage := !c.noStreamOptions.Load()
	retrying := false // the attempt about to be sent is a retry, taken from the retry budget
	if c.retryOf != nil {
		if !c.takeRetry(ctx, out, chat.Event{Kind: chat.EventRetrying, Attempt: 1, MaxAttempts: maxAttempts, Class: *c.retryOf},
			chat.Event{Kind: chat.EventFailed, Class: *c.retryOf, MaxAttempts: maxAttempts}) {
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
		if res.gotOutput && !res.gotUsage {
			out <- chat.Event{Kind: chat.EventUsage, Usage: chat.Usage{
				PromptTokens: EstimateTokens(msgs), CompletionTokens: runeTokens(res.outputRunes), Estimated: true,
			}}
		}
		switch {
		case ctx.Err() != nil:
			out <- chat.Event{Kind: chat.EventCancelled}
			return
		case res.failure == nil:
			c.noteSuccess()
			out <- chat.Event{Kind: chat.EventFinished, FinishReason: res.finishReason, Model: res.model,
				ToolCalls: res.calls.names(), Calls: res.calls.whole(res.finishReason), Unreadable: res.unreadable,
				OtherChoices: len(res.others)}
			return
		case withUsage && rejectsStreamOptions(*res.failure):
			c.log.Info("endpoint rejects stream_options; sending again without it", "status", res.failure.Status)
			c.noStreamOptions.Store(true)
			withUsage = false
			attempt-- // the same attempt, sent again
			retrying = false
			continue
		}
		cls := c.classify(*res.failure)
		if refusesImages(cls, msgs) {
			cls.Message = strings.TrimRight(cls.Message, ". ") + ": " + noVisionFix
		}
		if cls.Class == chat.ContextOverflow && !res.gotOutput && !rerun {
			limit, requested := parseOverflow(res.failure.Body, cls.Message)
			kept, n, ni := compactAll(all, compactTarget(msgs, limit, requested))
			c.log.Info("context overflow", "limit", limit, "requested", requested, "estimate", EstimateTokens(msgs),
				"omitted", n, "omitted_before", omitted, "images", ni)
			if n > omitted || ni > images {
				msgs, omitted, images, rerun = kept, n, ni, true
				out <- chat.Event{Kind: chat.EventCompacted, Omitted: omitted, OmittedImages: images}
				attempt, retrying = 0, false // a new request, with Tier 1 attempts of its own
				continue
			}
		}
		c.noteFailure(cls)
		d := c.policy.Decide(cls, attempt, res.gotOutput, c.clock.Now())
		if d.Retry && !c.mayRetry(*res.failure, attempt) {
			d = retry.Decision{}
		}
		c.log.Info("attempt failed", "attempt", attempt, "status", res.failure.Status, "class", cls.Class,
			"retryable", cls.Retryable, "retry", d.Retry, "wait", d.Wait, "handoff", d.HandOff, "message", cls.Message)
		if !d.Retry || !c.retryDeadline.IsZero() && c.clock.Now().Add(d.Wait).After(c.retryDeadline) {
			cls = c.nameTheFix(cls, *res.failure, res.url)
			g := c.gatewayRetries(res.failure.Header)
			cls.Message = gatewaySaid(g) + cls.Message
			out <- chat.Event{Kind: chat.EventFailed, Class: cls, Attempt: attempt, MaxAttempts: maxAttempts, Model: res.model, GatewayRetries: g}
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
		if !c.takeRetry(ctx, out, next, chat.Event{Kind: chat.EventFailed, Class: cls, Attempt: attempt, MaxAttempts: maxAttempts}) {
			return
		}
		retrying = true
	}
}

// rejectsStreamOptions reports whether f is an endpoint refusing the stream_options field,
// which some OpenAI-compatible servers do not know.
func rejectsStreamOptions(f retry.Failure) bool {
	return f.Phase == retry.Status && (f.Status == http.StatusBadRequest || f.Status == http.StatusUnprocessableEntity) &&
		bytes.Contains(bytes.ToLower(f.Body), []byte("stream_options"))
}
