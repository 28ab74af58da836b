package retry

import (
	"encoding/json"
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

// ParseAdvice reads every form of retry advice in a response's headers and body: the headers,
// headers a gateway copied into the body (OpenRouter's error.metadata.headers), Gemini's
// retryDelay, reset fields of the body, and waits and times in the message text (hints.go). Relative advice counts from now; of all the times
// found, the latest wins, since retrying before any one of them would fail again. body may be
// JSON (object or array) or plain text.
func ParseAdvice(h http.Header, body []byte, now time.Time) Advice {
	var a Advice
	consider := func(t time.Time) {
		if t.After(now) && t.After(a.NotBefore) {
			a.NotBefore = t
		}
	}
	after := func(d time.Duration) { consider(now.Add(d)) }

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
		if d, err := time.ParseDuration(m[1]); err == nil {
			after(d)
		}
	}
	textAdvice(text, now, consider)
	for _, t := range bodyResets(body, now) {
		consider(t)
	}
	return a
}

// headerAdvice passes every time h advises to consider.
func headerAdvice(h http.Header, now time.Time, consider func(time.Time)) {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
			consider(now.Add(time.Duration(ms * float64(time.Millisecond))))
		}
	}
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil {
			consider(now.Add(time.Duration(s * float64(time.Second))))
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
	if d, err := time.ParseDuration(v); err == nil {
		return now.Add(d), true
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		switch {
		case n >= epochMillis:
			return time.UnixMilli(int64(n)), true
		case n >= epochSeconds:
			return time.Unix(int64(n), 0), true
		}
		return now.Add(time.Duration(n * float64(time.Second))), true
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
func GatewayRetried(h http.Header) bool {
	if v := strings.TrimSpace(h.Get("x-portkey-retry-attempt-count")); v != "" && v != "0" {
		return true
	}
	n, err := strconv.Atoi(strings.TrimSpace(h.Get("x-litellm-attempted-retries")))
	return err == nil && n > 0
}
