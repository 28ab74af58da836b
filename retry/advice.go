package retry

import (
	"encoding/json"
	"math"
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
var resetHeaders = []struct{ reset, remaining string }{
	{"x-ratelimit-reset-requests", "x-ratelimit-remaining-requests"},
	{"x-ratelimit-reset-tokens", "x-ratelimit-remaining-tokens"},
	{"x-ratelimit-reset", "x-ratelimit-remaining"},
	{"anthropic-ratelimit-requests-reset", "anthropic-ratelimit-requests-remaining"},
	{"anthropic-ratelimit-tokens-reset", "anthropic-ratelimit-tokens-remaining"},
	{"anthropic-ratelimit-input-tokens-reset", "anthropic-ratelimit-input-tokens-remaining"},
	{"anthropic-ratelimit-output-tokens-reset", "anthropic-ratelimit-output-tokens-remaining"},
}

// retryDelay finds Gemini's RetryInfo "retryDelay": "37s" wherever it sits in the body, also
// inside an upstream's error a gateway passed on as a JSON string.
var retryDelay = regexp.MustCompile(`\\?"retryDelay\\?"\s*:\s*\\?"([^"\\]+)`)

// farthest is the latest time parley can hold: the history stores times as nanoseconds since
// 1970 in an int64, which ends in April 2262. A server's reset past it (a Retry-After of 10^21
// seconds, a Unix time of 10^25) is still advice, read as "not before" this time: a hard quota,
// never an overflow that wraps into the past and is ignored.
var farthest = time.Unix(0, math.MaxInt64)

// ParseAdvice reads every form of retry advice in a response's headers and body: the headers,
// headers a gateway copied into the body (OpenRouter's error.metadata.headers), Gemini's
// retryDelay, reset fields of the body, and waits and times in the message text (hints.go).
// Relative advice counts from now; of all the times found, the latest wins, since retrying
// before any one of them would fail again, and a time already past says nothing. A time past
// farthest is farthest. body may be JSON (object or array) or plain text.
func ParseAdvice(h http.Header, body []byte, now time.Time) Advice {
	var a Advice
	consider := func(t time.Time) {
		if t.After(farthest) {
			t = farthest
		}
		if t.After(now) && t.After(a.NotBefore) {
			a.NotBefore = t
		}
	}
	after := func(d time.Duration) { consider(later(now, d)) }

	for _, hs := range append([]http.Header{h}, copiedHeaders(body)...) {
		headerAdvice(hs, now, consider)
	}
	if v := h.Get("x-should-retry"); v != "" {
		if b, err := strconv.ParseBool(strings.TrimSpace(v)); err == nil {
			a.ShouldRetry = &b
		}
	}

	text := string(body)
	for _, m := range retryDelay.FindAllStringSubmatch(text, -1) {
		if d, ok := parseWait(m[1]); ok {
			after(d)
		}
	}
	tomorrow := textAdvice(text, now, consider)
	for _, t := range bodyResets(body, now) {
		consider(t)
	}
	if a.NotBefore.IsZero() {
		// A time of day already past today is tomorrow's only when nothing else the server
		// said is still ahead: beside "try again in 30s", "resets at 11:59" at noon is a
		// reset that has just happened, not one a day away.
		for _, t := range tomorrow {
			consider(t)
		}
	}
	return a
}

// maxWait is the longest wait a time.Duration holds, about 292 years.
const maxWait = time.Duration(math.MaxInt64)

// units converts a number of unit to a wait, saturating at maxWait rather than overflowing into
// a negative one; ok is false for a number that says nothing (negative, NaN).
func units(n float64, unit time.Duration) (time.Duration, bool) {
	switch ns := n * float64(unit); {
	case math.IsNaN(ns) || ns < 0:
		return 0, false
	case ns >= float64(maxWait):
		return maxWait, true
	default:
		return time.Duration(ns), true
	}
}

// later is now plus d, or farthest when that is past it (time.Time's Add would wrap).
func later(now time.Time, d time.Duration) time.Time {
	if d >= farthest.Sub(now) {
		return farthest
	}
	return now.Add(d)
}

// goDuration matches a Go duration without a sign ("6m0s", "1.5h"), and durationPart each of
// its parts.
var (
	goDuration   = regexp.MustCompile(`^(?:\d+(?:\.\d+)?(?:ns|us|µs|μs|ms|s|m|h))+$`)
	durationPart = regexp.MustCompile(`(\d+(?:\.\d+)?)(ns|us|µs|μs|ms|s|m|h)`)
	partUnit     = map[string]time.Duration{"ns": time.Nanosecond, "us": time.Microsecond, "µs": time.Microsecond,
		"μs": time.Microsecond, "ms": time.Millisecond, "s": time.Second, "m": time.Minute, "h": time.Hour}
)

// parseWait reads a Go duration as time.ParseDuration does, and one too long for it
// ("99999999999999h") as maxWait instead of an error.
func parseWait(s string) (time.Duration, bool) {
	if d, err := time.ParseDuration(s); err == nil {
		return d, true
	}
	if !goDuration.MatchString(s) {
		return 0, false
	}
	var total time.Duration
	for _, m := range durationPart.FindAllStringSubmatch(s, -1) {
		n, _ := strconv.ParseFloat(m[1], 64)
		d, _ := units(n, partUnit[m[2]])
		if total += d; total < 0 || d == maxWait {
			return maxWait, true
		}
	}
	return total, true
}

// headerAdvice passes every time h advises to consider.
func headerAdvice(h http.Header, now time.Time, consider func(time.Time)) {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
			if d, ok := units(ms, time.Millisecond); ok {
				consider(later(now, d))
			}
		}
	}
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil {
			if d, ok := units(s, time.Second); ok {
				consider(later(now, d))
			}
		} else if t, err := http.ParseTime(v); err == nil {
			consider(t)
		}
	}
	for _, r := range resetHeaders {
		v := h.Get(r.reset)
		if v == "" || limitHasRoom(h.Get(r.remaining)) {
			continue
		}
		if t, ok := resetTime(v, now); ok {
			consider(t)
		}
	}
}

// Numbers at least this large in a reset header are a Unix time, in seconds or milliseconds,
// rather than seconds to wait: 1e9 seconds is 31 years.
const (
	epochSeconds = 1e9
	epochMillis  = 1e12
)

// resetTime reads a reset header's value in any form providers use: a Go duration ("6m0s"),
// seconds to wait, a Unix time in seconds or milliseconds (OpenRouter), an RFC 3339 time
// (Anthropic) or an HTTP date.
func resetTime(v string, now time.Time) (time.Time, bool) {
	v = strings.TrimSpace(v)
	if d, ok := parseWait(v); ok {
		return later(now, d), true
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		var unix float64 // seconds since 1970
		switch {
		case n >= epochMillis:
			unix = n / 1e3
		case n >= epochSeconds:
			unix = n
		default:
			d, ok := units(n, time.Second)
			return later(now, d), ok
		}
		if unix >= float64(farthest.Unix()) {
			return farthest, true
		}
		return time.UnixMilli(int64(unix * 1e3)), true
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return t, true
	}
	return time.Time{}, false
}

// copiedHeaders finds the header sets a gateway copied into a JSON body from the upstream's
// response: every object under a "headers" key, at any depth, also inside an upstream error
// passed on as a JSON string.
func copiedHeaders(body []byte) []http.Header {
	var out []http.Header
	eachField(body, func(k string, v any) bool {
		hs, ok := v.(map[string]any)
		if ok && strings.EqualFold(k, "headers") {
			out = append(out, headerOf(hs))
		}
		return ok && strings.EqualFold(k, "headers")
	})
	return out
}

// headerOf turns a JSON object of header names and values into an http.Header.
func headerOf(obj map[string]any) http.Header {
	h := http.Header{}
	for k, v := range obj {
		switch x := v.(type) {
		case string:
			h.Set(k, x)
		case json.Number:
			h.Set(k, x.String())
		}
	}
	return h
}

// limitHasRoom reports whether a remaining-count header says the limit is not used up.
func limitHasRoom(remaining string) bool {
	n, err := strconv.ParseFloat(strings.TrimSpace(remaining), 64)
	return err == nil && n > 0
}

// GatewayRetried reports whether the response headers h say a gateway between parley and the
// provider already retried the request (Portkey's x-portkey-retry-attempt-count, -1 once its
// retries are spent; LiteLLM's x-litellm-attempted-retries): retrying on top would multiply its
// attempts by parley's.
func GatewayRetried(h http.Header) bool { return GatewayRetries(h) != 0 }

// ConfiguredRetries is how many retries a Portkey config sent as the x-portkey-config header
// asks for ({"retry":{"attempts":3}}), 0 when it asks for none or is not inline JSON (a saved
// config's id). Portkey answers -1 once they are all spent (GatewayRetries), never their number.
func ConfiguredRetries(config string) int {
	var c struct {
		Retry struct {
			Attempts int `json:"attempts"`
		} `json:"retry"`
	}
	if json.Unmarshal([]byte(config), &c) != nil {
		return 0
	}
	return max(c.Retry.Attempts, 0)
}

// GatewayRetries is how many times a gateway says, in the response headers h, it retried the
// request before answering: 0 when it did not say, -1 when it says only that its retries are
// spent (Portkey's -1).
func GatewayRetries(h http.Header) int {
	if v := strings.TrimSpace(h.Get("x-portkey-retry-attempt-count")); v != "" && v != "0" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			return n
		}
		return -1
	}
	if n, err := strconv.Atoi(strings.TrimSpace(h.Get("x-litellm-attempted-retries"))); err == nil && n > 0 {
		return n
	}
	return 0
}
