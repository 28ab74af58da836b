package retry

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Advice is the server's retry advice, gathered from headers and body into one "not before" time.
type Advice struct {
	// NotBefore is the latest time any source advised waiting until; zero when no source named
	// a time after now.
	NotBefore time.Time
	// ShouldRetry is the x-should-retry header, when present and readable.
	ShouldRetry *bool
}

// resetHeaders pairs each rate-limit reset header with the header counting what is left of the
// same limit. A reset header is advice only while its limit is used up (remaining 0 or not
// reported): providers send reset times for every limit, and the time a limit that still has
// room will next refill — a daily limit, say — is no reason to wait.
var resetHeaders = []struct {
	reset, remaining string
	absolute         bool // RFC 3339 time rather than a Go duration
}{
	{"x-ratelimit-reset-requests", "x-ratelimit-remaining-requests", false},
	{"x-ratelimit-reset-tokens", "x-ratelimit-remaining-tokens", false},
	{"anthropic-ratelimit-requests-reset", "anthropic-ratelimit-requests-remaining", true},
	{"anthropic-ratelimit-tokens-reset", "anthropic-ratelimit-tokens-remaining", true},
	{"anthropic-ratelimit-input-tokens-reset", "anthropic-ratelimit-input-tokens-remaining", true},
	{"anthropic-ratelimit-output-tokens-reset", "anthropic-ratelimit-output-tokens-remaining", true},
}

var (
	// waitHint finds "try again in 18.642s", "retry after 37 seconds", "retry in 45.5s",
	// "try again in 6m0s" and the like in message text.
	waitHint = regexp.MustCompile(`(?i)\b(?:try again|retry)\s+(?:in|after)\s+` +
		`(?:((?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+)\b|(\d+(?:\.\d+)?)\s*(milliseconds?|seconds?|secs?|minutes?|mins?|hours?)\b)`)
	// regainHint finds "You will regain access on 2026-04-01 at 00:00 UTC".
	regainHint = regexp.MustCompile(`(?i)regain access on (\d{4}-\d{2}-\d{2}) at (\d{2}:\d{2}) UTC`)
	// retryDelay finds Gemini's RetryInfo "retryDelay": "37s" wherever it sits in the body.
	retryDelay = regexp.MustCompile(`"retryDelay"\s*:\s*"([^"]+)"`)
)

// ParseAdvice reads every form of retry advice in a response's headers and body. Relative
// advice counts from now; of all the times found, the latest wins, since retrying before any
// one of them would fail again. body may be JSON (object or array) or plain text.
func ParseAdvice(h http.Header, body []byte, now time.Time) Advice {
	var a Advice
	consider := func(t time.Time) {
		if t.After(now) && t.After(a.NotBefore) {
			a.NotBefore = t
		}
	}
	after := func(d time.Duration) { consider(now.Add(d)) }

	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
			after(time.Duration(ms * float64(time.Millisecond)))
		}
	}
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil {
			after(time.Duration(s * float64(time.Second)))
		} else if t, err := http.ParseTime(v); err == nil {
			consider(t)
		}
	}
	if v := h.Get("x-should-retry"); v != "" {
		if b, err := strconv.ParseBool(strings.TrimSpace(v)); err == nil {
			a.ShouldRetry = &b
		}
	}
	for _, r := range resetHeaders {
		v := strings.TrimSpace(h.Get(r.reset))
		if v == "" || limitHasRoom(h.Get(r.remaining)) {
			continue
		}
		if r.absolute {
			if t, err := time.Parse(time.RFC3339, v); err == nil {
				consider(t)
			}
		} else if d, err := time.ParseDuration(v); err == nil {
			after(d)
		}
	}

	text := string(body)
	for _, m := range retryDelay.FindAllStringSubmatch(text, -1) {
		if d, err := time.ParseDuration(m[1]); err == nil {
			after(d)
		}
	}
	for _, m := range waitHint.FindAllStringSubmatch(text, -1) {
		if d, ok := hintDuration(m[1], m[2], m[3]); ok {
			after(d)
		}
	}
	for _, m := range regainHint.FindAllStringSubmatch(text, -1) {
		if t, err := time.Parse("2006-01-02 15:04", m[1]+" "+m[2]); err == nil {
			consider(t)
		}
	}
	return a
}

// limitHasRoom reports whether a remaining-count header says the limit is not used up.
func limitHasRoom(remaining string) bool {
	n, err := strconv.ParseFloat(strings.TrimSpace(remaining), 64)
	return err == nil && n > 0
}

// hintDuration converts a waitHint match: either a Go duration, or a number and a unit word.
func hintDuration(goDur, num, unit string) (time.Duration, bool) {
	if goDur != "" {
		d, err := time.ParseDuration(goDur)
		return d, err == nil
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, false
	}
	per := time.Second
	switch u := strings.ToLower(unit); {
	case strings.HasPrefix(u, "milli"):
		per = time.Millisecond
	case strings.HasPrefix(u, "min"):
		per = time.Minute
	case strings.HasPrefix(u, "hour"):
		per = time.Hour
	}
	return time.Duration(n * float64(per)), true
}
