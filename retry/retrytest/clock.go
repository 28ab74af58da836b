// Package retrytest provides a manual retry.Clock for tests of anything that waits: time moves
// only when the test says, so backoffs, countdowns and flush delays are exact and instant.
package retrytest

import (
	"sync"
	"time"
)

// Clock is a retry.Clock whose time moves only by Advance. It is safe for concurrent use.
type Clock struct {
	mu    sync.Mutex
	now   time.Time
	waits []wait
	asked chan time.Duration
}

type wait struct {
	at time.Time
	d  time.Duration
	ch chan time.Time
}

// New returns a Clock reading now.
func New(now time.Time) *Clock {
	return &Clock{now: now, asked: make(chan time.Duration, 1024)}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After returns a channel that receives when the clock has been advanced by d; at once when
// d is not positive. Every call is also reported on Asked.
func (c *Clock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	select {
	case c.asked <- d:
	default: // nobody reads Asked: drop the report rather than block the code under test
	}
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.waits = append(c.waits, wait{at: c.now.Add(d), d: d, ch: ch})
	return ch
}

// Asked reports the duration of each call to After, in order.
func (c *Clock) Asked() <-chan time.Duration { return c.asked }

// Advance moves the clock on by d and fires every wait that is due.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.waits[:0]
	for _, w := range c.waits {
		if w.at.After(c.now) {
			kept = append(kept, w)
			continue
		}
		w.ch <- c.now
	}
	c.waits = kept
}

// Waiting reports whether a wait of exactly d is pending.
func (c *Clock) Waiting(d time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, w := range c.waits {
		if w.d == d {
			return true
		}
	}
	return false
}
