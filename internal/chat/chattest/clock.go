// Package chattest provides what tests of anything that waits share: a manual chat.Clock, whose
// time moves only when the test says, so backoffs, countdowns and flush delays are exact and
// instant, and a buffer and a poll for what a real process does in its own time.
package chattest

import (
	"sync"
	"testing"
	"time"
)

// Start is the time tests start their clocks at, unless one needs another: fixed, so that
// what a test sees is the same on every run.
var Start = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// Clock is a chat.Clock whose time moves only by Advance, or, made by NewInstant, by each
// wait. It is safe for concurrent use.
type Clock struct {
	mu      sync.Mutex
	now     time.Time
	instant bool
	waits   []wait
	asked   chan time.Duration
	history []time.Duration
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

// NewInstant returns a Clock reading now on which every wait passes at once, moving the clock
// on by its length: for tests that count and bound waits without sitting through them.
func NewInstant(now time.Time) *Clock {
	c := New(now)
	c.instant = true
	return c
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After returns a channel that receives when the clock has been advanced by d; at once when
// d is not positive or the clock is instant. Every call is also reported on Asked and Waits.
func (c *Clock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	select {
	case c.asked <- d:
	default: // nobody reads Asked: drop the report rather than block the code under test
	}
	c.history = append(c.history, d)
	if c.instant && d > 0 {
		c.now = c.now.Add(d)
	}
	if d <= 0 || c.instant {
		ch <- c.now
		return ch
	}
	c.waits = append(c.waits, wait{at: c.now.Add(d), d: d, ch: ch})
	return ch
}

// Waits returns the duration of every call to After so far, in order.
func (c *Clock) Waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.history...)
}

// Asked reports the duration of each call to After, in order.
func (c *Clock) Asked() <-chan time.Duration { return c.asked }

// NextWait returns the duration of the next call to After, failing t if none comes within
// five seconds of real time.
func (c *Clock) NextWait(t testing.TB) time.Duration {
	t.Helper()
	select {
	case d := <-c.asked:
		return d
	case <-time.After(5 * time.Second):
		t.Fatal("nothing waited on the clock")
		return 0
	}
}

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
