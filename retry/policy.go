package retry

import (
	"math/rand/v2"
	"time"

	"parley/internal/chat"
)

// Policy is Tier 1's backoff policy: a few quick attempts, each wait drawn with full jitter so
// that many clients failing together do not return together.
type Policy struct {
	// MaxAttempts bounds the attempts of one run, the first included.
	MaxAttempts int
	// Base is the ceiling of the first wait; each later ceiling doubles, up to Cap.
	Base time.Duration
	// Cap bounds every wait. Advice to wait longer is handed to Tier 2 instead.
	Cap time.Duration
	// Rand returns a number in [0, 1). Nil means math/rand/v2's Float64.
	Rand func() float64
}

// DefaultPolicy returns the policy Tier 1 uses: 3 attempts, base 1 s, cap 30 s.
func DefaultPolicy() Policy {
	return Policy{MaxAttempts: 3, Base: time.Second, Cap: 30 * time.Second}
}

// Backoff returns the wait before attempt n+1 after attempt n failed (n counts from 1): uniform
// in [0, min(Cap, Base·2^(n-1))].
func (p Policy) Backoff(n int) time.Duration {
	ceiling := p.Base
	for i := 1; i < n && ceiling > 0; i++ {
		if ceiling > p.Cap/2 { // doubling would pass Cap, or overflow
			ceiling = p.Cap
			break
		}
		ceiling *= 2
	}
	ceiling = min(ceiling, p.Cap)
	r := p.Rand
	if r == nil {
		r = rand.Float64
	}
	return time.Duration(r() * float64(ceiling))
}

// Decision is what Tier 1 does after a failed attempt.
type Decision struct {
	// Retry says to send another attempt after Wait.
	Retry bool
	// Wait is how long to wait before that attempt; 0 when Retry is false. Never above Cap.
	Wait time.Duration
	// HandOff says the run fails now only because the server advised a wait longer than Cap;
	// the chat.Classification's RetryAfterUntil tells Tier 2 when to try again.
	HandOff bool
}

// Decide says whether Tier 1 retries after attempt (counting from 1) failed with c at now.
// gotOutput reports whether any output (answer or thinking) of this attempt reached the
// operator: the commit point. Once it has, nothing is retried, because a new attempt would
// show the reply again from its start.
// Decide never retries a class that is not retryable, never allows more than MaxAttempts, and
// never waits beyond Cap: advice further away than Cap hands off, nearer advice is waited out.
func (p Policy) Decide(c chat.Classification, attempt int, gotOutput bool, now time.Time) Decision {
	if gotOutput || !c.Retryable || attempt >= p.MaxAttempts {
		return Decision{}
	}
	advised := time.Duration(0)
	if !c.RetryAfterUntil.IsZero() {
		advised = c.RetryAfterUntil.Sub(now)
	}
	if advised > p.Cap {
		return Decision{HandOff: true}
	}
	return Decision{Retry: true, Wait: max(p.Backoff(attempt), advised)}
}
