package agent

import (
	"fmt"
	"net/http"
	"time"

	"parley/internal/chat"
	"parley/retry"
)

// Pacing: when a provider reports what is left of its rate limits, parley remembers it for
// every parley on the machine (like endpoint memory), and a send it says would be refused
// waits for the limit to refill instead of meeting the 429. With no such headers nothing is
// remembered and nothing waits.

// noteRemaining remembers what the provider said in h, the headers of an answer of status, is
// left of its limits. A success that says nothing of them forgets what an earlier answer
// said: the limit had room.
func (c *Client) noteRemaining(status int, h http.Header) {
	if c.store == nil || status == 0 {
		return
	}
	r, ok := retry.ParseRemaining(h, c.clock.Now())
	if !ok && status >= 300 {
		return
	}
	c.logStore("remembering the provider's limits", c.store.RememberRemaining(c.key(), r))
}

// paced returns the failure of a request of msgs that the provider's last word on its limits
// says it would refuse now, as a wait until the limit refills (the provider said it at saidAt).
func (c *Client) paced(msgs []chat.Message) (cls chat.Classification, saidAt time.Time, held bool) {
	r, ok, err := c.store.Remaining(c.key())
	c.logStore("reading the provider's limits", err)
	if !ok {
		return chat.Classification{}, time.Time{}, false
	}
	now := c.clock.Now()
	until, held := retry.Hold(r, EstimateTokens(msgs), now)
	if !held {
		return chat.Classification{}, time.Time{}, false
	}
	left := "0 requests"
	if r.Requests != 0 || !r.RequestsReset.After(now) {
		left = chat.FormatTokens(r.Tokens) + " tokens"
	}
	who := c.ep.Profile()
	if who == "" { // a profile's or a preset's name says who; flags say none
		who = "the endpoint"
	}
	cls = chat.NewClassification(chat.RateLimited, fmt.Sprintf("%s said at %s that %s are left until %s: nothing was sent, as it would be refused%s",
		who, chat.FormatClockSeconds(r.SaidAt, now), left, chat.FormatClockSeconds(until, now), c.routeNote()))
	// The label says who said it, as the banner of the wait shows it.
	cls.Label, cls.Rule, cls.RetryAfterUntil = fmt.Sprintf("%s says %s left", who, left), "endpoint.pacing", until
	return cls, r.SaidAt, true
}

// RateLimits returns what the provider last said is left of its limits, for the operator to
// see; ok is false when it never said or nothing is shared.
func (c *Client) RateLimits() (r chat.Remaining, ok bool) {
	if c.store == nil {
		return chat.Remaining{}, false
	}
	r, ok, err := c.store.Remaining(c.key())
	c.logStore("reading the provider's limits", err)
	return r, ok && (r.Requests >= 0 || r.Tokens >= 0)
}
