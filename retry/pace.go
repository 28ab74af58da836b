package retry

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"parley/internal/chat"
)

// remainingHeaders are the header names of one limit, in the order tried: the first present
// of each kind wins.
type remainingHeaders struct{ remaining, limit, reset []string }

var (
	requestHeaders = remainingHeaders{
		remaining: []string{"x-ratelimit-remaining-requests", "anthropic-ratelimit-requests-remaining", "x-ratelimit-remaining"},
		limit:     []string{"x-ratelimit-limit-requests", "anthropic-ratelimit-requests-limit", "x-ratelimit-limit"},
		reset:     []string{"x-ratelimit-reset-requests", "anthropic-ratelimit-requests-reset", "x-ratelimit-reset"},
	}
	tokenHeaders = remainingHeaders{
		remaining: []string{"x-ratelimit-remaining-tokens", "anthropic-ratelimit-tokens-remaining", "anthropic-ratelimit-input-tokens-remaining"},
		limit:     []string{"x-ratelimit-limit-tokens", "anthropic-ratelimit-tokens-limit", "anthropic-ratelimit-input-tokens-limit"},
		reset:     []string{"x-ratelimit-reset-tokens", "anthropic-ratelimit-tokens-reset", "anthropic-ratelimit-input-tokens-reset"},
	}
)

// ParseRemaining reads what h says is left of the provider's limits at now: OpenAI's
// x-ratelimit-remaining-requests / -tokens with their resets, Anthropic's
// anthropic-ratelimit-*-remaining and -reset, and the plain x-ratelimit-remaining (requests)
// of others. ok is false when
// h reports no remaining count at all: nothing is then known, and nothing is paced.
func ParseRemaining(h http.Header, now time.Time) (r chat.Remaining, ok bool) {
	r = chat.Remaining{Requests: -1, Tokens: -1, SaidAt: now}
	var okReq, okTok bool
	r.Requests, r.RequestLimit, r.RequestsReset, okReq = readLimit(h, requestHeaders, now)
	r.Tokens, r.TokenLimit, r.TokensReset, okTok = readLimit(h, tokenHeaders, now)
	return r, okReq || okTok
}

// readLimit reads one limit's remaining count, limit and reset from h.
func readLimit(h http.Header, names remainingHeaders, now time.Time) (remaining, limit int, reset time.Time, ok bool) {
	remaining = -1
	if v, found := first(h, names.remaining); found {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || n < 0 {
			return -1, 0, time.Time{}, false
		}
		remaining, ok = int(n), true
	}
	if v, found := first(h, names.limit); found {
		if n, err := strconv.ParseFloat(v, 64); err == nil && n > 0 {
			limit = int(n)
		}
	}
	if v, found := first(h, names.reset); found {
		reset, _ = resetTime(v, now)
	}
	return remaining, limit, reset, ok
}

func first(h http.Header, names []string) (string, bool) {
	for _, n := range names {
		if v := strings.TrimSpace(h.Get(n)); v != "" {
			return v, true
		}
	}
	return "", false
}

// Hold says whether a request of about tokens tokens, sent at now, would be refused by the
// limits r reported (pacing: the send waits instead of meeting a 429): none left of the requests, or fewer tokens left than the request holds,
// before the limit refills. until is when it refills; a count whose reset has passed (or was
// never said) holds nothing back, since the provider's own window has moved on or is unknown.
func Hold(r chat.Remaining, tokens int, now time.Time) (until time.Time, held bool) {
	if r.Requests == 0 && r.RequestsReset.After(now) {
		until = r.RequestsReset
	}
	if r.Tokens >= 0 && tokens > r.Tokens && r.TokensReset.After(now) && r.TokensReset.After(until) {
		until = r.TokensReset
	}
	return until, !until.IsZero()
}

// Low reports whether what r says is left is worth showing the operator at now: a tenth or less of a limit left
// (or five requests, when the limit is not said), before it refills.
func Low(r chat.Remaining, now time.Time) bool {
	low := func(left, limit int, reset time.Time) bool {
		if left < 0 || !reset.After(now) {
			return false
		}
		if limit > 0 {
			return left*10 <= limit
		}
		return left <= 5
	}
	return low(r.Requests, r.RequestLimit, r.RequestsReset) || low(r.Tokens, r.TokenLimit, r.TokensReset)
}
