package retry

import (
	"fmt"
	"time"

	"parley/internal/chat"
)

// Tier 2 is the slow, visible retry: the chat screen's countdown, and print mode's --wait.
// Its schedule, its machine (tier2machine.go) and the wording of its wait live here, so that
// both front ends wait, round and offer the fallback alike.
const (
	// Tier2Base is the wait before the first Tier 2 retry; each later wait doubles.
	Tier2Base = 2 * time.Second
	// Tier2Cap bounds every wait. Provider advice further away than this is shown as a time
	// of day instead of a countdown.
	Tier2Cap = 300 * time.Second
	// Tier2Horizon is how far away provider advice may be for a retry to arm at all; beyond
	// it nobody waits at a terminal, and the failure is a hard quota.
	Tier2Horizon = quotaHorizon
)

// Tier2Delay returns the countdown before Tier 2 retry n (from 1): 2 s, 4 s, 8 s … 300 s.
func Tier2Delay(n int) time.Duration {
	d := Tier2Base
	for i := 1; i < n && d < Tier2Cap; i++ {
		d *= 2
	}
	return min(d, Tier2Cap)
}

// Tier2Due returns when Tier 2 retry n of a failure classed c, which happened at failed, is
// sent: after its countdown, and never before the provider's advice.
func Tier2Due(n int, c chat.Classification, failed time.Time) time.Time {
	due := failed.Add(Tier2Delay(n))
	if c.RetryAfterUntil.After(due) {
		return c.RetryAfterUntil
	}
	return due
}

// SecondsLeft is a countdown to due as it is shown at now: whole seconds, rounded up, so that
// "in 1s" is the last second and "in 0s" never shows while anything is left.
func SecondsLeft(due, now time.Time) int {
	left := due.Sub(now)
	if left <= 0 {
		return 0
	}
	return int((left + time.Second - 1) / time.Second)
}

// Reconnecting words Tier 1's wait before a retry, as both front ends say it (Tier 2's is
// Tier2.Waiting): ev is its EventRetrying, due when the wait ends, and now the time it is said
// at; a zero due (the attempt is being sent) leaves the countdown out. A wait for the retry
// budget every parley shares says so instead. The label is the classification's,
// unneutralised, as with Waiting.
func Reconnecting(ev chat.Event, due, now time.Time) string {
	if ev.BudgetSpent && due.After(now) {
		return "retry budget spent — next retry at " + chat.FormatClockSeconds(due, now)
	}
	s := fmt.Sprintf("%s — reconnecting, attempt %d/%d", ev.Class.Label, ev.Attempt, ev.MaxAttempts)
	if secs := SecondsLeft(due, now); secs > 0 {
		s += fmt.Sprintf(" in %ds", secs)
	}
	return s
}

// FallbackOffered reports whether a failure classed c may be sent to the profile's fallback
// instead of waiting: only a provider that is overloaded, rate limited or failing, where
// another endpoint can answer what this one cannot now.
func FallbackOffered(c chat.Classification) bool {
	if !c.Retryable {
		return false
	}
	switch c.Class {
	case chat.Overloaded, chat.RateLimited, chat.ServerError:
		return true
	}
	return false
}
