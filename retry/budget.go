package retry

import (
	"sort"
	"time"

	"parley/internal/chat"
)

// RetryBudget bounds the automatic retries to one endpoint, counted across every parley on the
// machine: over any Window, retries stay within Ratio of the first attempts sent to the
// endpoint plus Extra. First attempts are never held back; an outage then costs each request its first
// attempt and the endpoint a bounded trickle of retries, however many processes send.
type RetryBudget struct {
	Ratio  float64
	Extra  int
	Window time.Duration
}

// DefaultRetryBudget is 10 % of the endpoint's first attempts over the last minute, plus 10.
func DefaultRetryBudget() RetryBudget {
	return RetryBudget{Ratio: 0.1, Extra: 10, Window: time.Minute}
}

// fits reports whether one more retry fits among sends.
func (b RetryBudget) fits(sends []chat.Send) bool {
	retries := 0
	for _, s := range sends {
		if s.Retry {
			retries++
		}
	}
	return float64(retries) < b.Ratio*float64(len(sends)-retries)+float64(b.Extra)
}

// Next reports whether a retry may be sent at now, given the sends of the last Window; when it
// may not, at is the earliest time it will, as the sends now counted leave the window (and
// nothing else is sent meanwhile).
func (b RetryBudget) Next(sends []chat.Send, now time.Time) (ok bool, at time.Time) {
	var in []chat.Send
	for _, s := range sends {
		if s.At.After(now.Add(-b.Window)) {
			in = append(in, s)
		}
	}
	if b.fits(in) {
		return true, now
	}
	sort.Slice(in, func(i, j int) bool { return in[i].At.Before(in[j].At) })
	for i := range in {
		if b.fits(in[i+1:]) {
			return false, in[i].At.Add(b.Window)
		}
	}
	return false, now.Add(b.Window)
}
