package chat

import "time"

// Clock tells the time and waits. Everything that waits (Tier 1's backoff, Tier 2's countdown,
// the recorder's flush delay, the demo's pacing) takes one, so tests run on a manual clock
// (chattest) and are exact and instant.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives once d has passed.
	After(d time.Duration) <-chan time.Time
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns the current time.
func (SystemClock) Now() time.Time { return time.Now() }

// After waits for d on the real clock.
func (SystemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
