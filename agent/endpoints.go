package agent

import (
	"context"
	"time"

	"parley/internal/chat"
	"parley/retry"
)

// EndpointStore is what every parley process on the machine shares about endpoints: the waits
// providers asked for (endpoint memory), what they said is left of their limits (pacing) and
// the requests sent (for the retry budget). The
// history database implements it.
type EndpointStore interface {
	Wait(ep chat.EndpointKey, now time.Time) (c chat.Classification, saidAt time.Time, ok bool, err error)
	RememberWait(ep chat.EndpointKey, c chat.Classification, saidAt time.Time) error
	ForgetWait(ep chat.EndpointKey) error
	RememberRemaining(ep chat.EndpointKey, r chat.Remaining) error
	Remaining(ep chat.EndpointKey) (r chat.Remaining, ok bool, err error)
	RecordSend(where string, at time.Time, retry bool, keep time.Duration) error
	TakeRetry(where string, now time.Time, window time.Duration,
		allow func(sends []chat.Send, now time.Time) (bool, time.Time)) (bool, time.Time, error)
}

// WithStore returns a client that shares endpoint memory and the retry budget through store.
func (c *Client) WithStore(store EndpointStore) *Client {
	cc := *c
	cc.store = store
	return &cc
}

// WithRules returns a client that classifies failures with the operator's rules first, before
// the built-in ones ([[classify]] in config.toml).
func (c *Client) WithRules(rules []retry.UserRule) *Client {
	cc := *c
	cc.classifier = retry.Classifier{Rules: rules}
	return &cc
}

// WithForce returns a client that sends even while endpoint memory holds the endpoint back.
func (c *Client) WithForce() *Client {
	cc := *c
	cc.force = true
	return &cc
}

// AsRetryOf returns a client whose runs are automatic retries of a failure classed cls (print
// mode's --wait): each run's first request is taken from the retry budget like a Tier 1
// retry, and when the budget has no room in time the run fails as cls did, sending nothing.
func (c *Client) AsRetryOf(cls chat.Classification) *Client {
	cc := *c
	cc.retryOf = &cls
	return &cc
}

// SingleRequest returns a client whose runs make one request, with no Tier 1 retries inside:
// a Tier 2 retry is one request, so that the attempts its countdown shows are the requests
// sent.
func (c *Client) SingleRequest() *Client {
	cc := *c
	cc.policy.MaxAttempts = 1
	return &cc
}

// RetriesUntil returns a client whose Tier 1 starts no wait that would end after t: a caller
// with a deadline of its own (print mode's --wait) gets the failure instead.
func (c *Client) RetriesUntil(t time.Time) *Client {
	cc := *c
	cc.retryDeadline = t
	return &cc
}

func (c *Client) key() chat.EndpointKey {
	return chat.EndpointKey{BaseURL: c.where(), Model: c.ep.Model, KeyEnv: c.ep.KeyEnv, Route: c.ep.Route()}
}

// heldBack returns the failure of a request of msgs that must not be sent: the provider said,
// at saidAt, not before the classification's RetryAfterUntil, or that too little is left of
// its limits until then (paced).
func (c *Client) heldBack(msgs []chat.Message) (cls chat.Classification, saidAt time.Time, held bool) {
	if c.store == nil || c.force {
		return chat.Classification{}, time.Time{}, false
	}
	cls, saidAt, held, err := c.store.Wait(c.key(), c.clock.Now())
	c.logStore("reading endpoint memory", err)
	if held {
		// The provider's words were said to an earlier request: this run says when, not them.
		cls.Rule, cls.Message = "endpoint.memory", chat.FormatHeld(saidAt, cls.RetryAfterUntil, c.clock.Now())+c.routeNote()
		return cls, saidAt, held
	}
	return c.paced(msgs)
}

// noteFailure remembers a provider's wait for every parley, while it is still ahead.
func (c *Client) noteFailure(cls chat.Classification) {
	now := c.clock.Now()
	if c.store != nil && cls.RetryAfterUntil.After(now) {
		c.logStore("remembering a provider's wait", c.store.RememberWait(c.key(), cls, now))
	}
}

// noteSuccess forgets any wait remembered for the endpoint: it answered.
func (c *Client) noteSuccess() {
	if c.store != nil {
		c.logStore("forgetting a provider's wait", c.store.ForgetWait(c.key()))
	}
}

// noteFirstSend counts a first attempt for the retry budget.
func (c *Client) noteFirstSend() {
	if c.store != nil {
		c.logStore("counting a request", c.store.RecordSend(c.key().Where(), c.clock.Now(), false, c.budget.Window))
	}
}

// takeRetry waits until the shared retry budget has room for one more retry, and takes it,
// saying so while it waits (waiting, with BudgetSpent). When it cannot, it ends the run and
// reports false, having sent nothing: with failed when the budget frees only after Tier 1's
// longest wait (the run fails as it was, for Tier 2), with EventCancelled when ctx ends.
func (c *Client) takeRetry(ctx context.Context, out chan<- chat.Event, waiting, failed chat.Event) bool {
	if c.store == nil {
		return true
	}
	for {
		now := c.clock.Now()
		ok, at, err := c.store.TakeRetry(c.key().Where(), now, c.budget.Window, c.budget.Next)
		if err != nil {
			c.logStore("taking a retry from the budget", err)
			return true // a broken ledger must not stop a retry the policy allows
		}
		if ok {
			return true
		}
		wait := at.Sub(now)
		if wait > c.policy.Cap {
			c.log.Info("retry budget spent", "endpoint", c.where(), "until", at)
			out <- failed
			return false
		}
		waiting.Wait, waiting.BudgetSpent = wait, true
		out <- waiting
		select {
		case <-ctx.Done():
			out <- chat.Event{Kind: chat.EventCancelled}
			return false
		case <-c.clock.After(wait):
		}
	}
}

// routeNote names the endpoint's route in what a hold says, when it has one beyond its URL:
// " (route: api.portkey.ai … custom-host 127.0.0.1:9001)".
func (c *Client) routeNote() string {
	if r := c.ep.RouteLabel(); r != "" {
		return " (route: " + r + ")"
	}
	return ""
}

func (c *Client) logStore(what string, err error) {
	if err != nil {
		c.log.Warn("endpoint store: "+what, "endpoint", c.where(), "err", err)
	}
}

// where is the endpoint's base URL as parley stores, logs and shows it: without a password or
// query values, which may be secrets.
func (c *Client) where() string { return chat.RedactURL(c.ep.BaseURL) }

// classify classifies f with the endpoint's secrets taken out of its body first (a body that
// is no error object is cut to an excerpt, and a secret the cut straddles would leave its
// first part behind), and out of the words classification gives it.
func (c *Client) classify(f retry.Failure) chat.Classification {
	f.Body = c.redact.Bytes(f.Body)
	return c.redact.Classification(c.classifier.Classify(f))
}

// Redactor takes the endpoint's secrets (chat.Secrets) out of what its server says: the
// client's events pass it, and so must whatever else the run gets from the world (tool
// results).
func (c *Client) Redactor() *chat.Redactor { return c.redact }
