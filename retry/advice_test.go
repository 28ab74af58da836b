package retry

import (
	"net/http"
	"testing"
	"time"
)

var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

func TestParseAdviceSources(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header http.Header
		body   string
		want   time.Duration // from testNow; 0 means no advice
	}{
		{"retry-after seconds", header("Retry-After", "3000"), "", 3000 * time.Second},
		{"retry-after http date", header("Retry-After", "Sun, 01 Mar 2026 12:00:45 GMT"), "", 45 * time.Second},
		{"retry-after date in the past", header("Retry-After", "Sun, 01 Mar 2026 11:00:00 GMT"), "", 0},
		{"retry-after garbage", header("Retry-After", "soon"), "", 0},
		{"retry-after-ms fractional", header("retry-after-ms", "1500.5"), "", 1500500 * time.Microsecond},
		{"openai reset requests, exhausted", header("x-ratelimit-reset-requests", "45m0s",
			"x-ratelimit-remaining-requests", "0"), "", 45 * time.Minute},
		{"openai reset tokens, remaining not sent", header("x-ratelimit-reset-tokens", "6m0s"), "", 6 * time.Minute},
		{"openai reset with room left is not advice", header("x-ratelimit-reset-requests", "23h47m36.648s",
			"x-ratelimit-remaining-requests", "9999"), "", 0},
		{"only the exhausted limit counts", header(
			"x-ratelimit-reset-requests", "23h47m36.648s", "x-ratelimit-remaining-requests", "5",
			"x-ratelimit-reset-tokens", "1ms", "x-ratelimit-remaining-tokens", "0"), "", time.Millisecond},
		{"anthropic reset, exhausted", header(
			"anthropic-ratelimit-tokens-reset", "2026-03-01T12:01:30Z", "anthropic-ratelimit-tokens-remaining", "0",
			"anthropic-ratelimit-input-tokens-reset", "2026-03-01T12:05:00Z", "anthropic-ratelimit-input-tokens-remaining", "800"),
			"", 90 * time.Second},
		{"anthropic output tokens reset", header("anthropic-ratelimit-output-tokens-reset", "2026-03-01T12:00:07Z"), "", 7 * time.Second},
		{"gemini retryDelay in an array", nil,
			`[{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1.5s"}]}}]`,
			1500 * time.Millisecond},
		{"message: try again in Go duration", nil, `{"error":{"message":"Please try again in 6m0s."}}`, 6 * time.Minute},
		{"message: try again in ms", nil, `Rate limit reached. Please try again in 20ms.`, 20 * time.Millisecond},
		{"message: try again in seconds", nil, `try again in 1.98s`, 1980 * time.Millisecond},
		{"message: retry after N seconds", nil, `Please retry after 37 seconds.`, 37 * time.Second},
		{"message: retry in", nil, `Please retry in 45.5s`, 45500 * time.Millisecond},
		{"message: minutes in words", nil, `try again in 2 minutes`, 2 * time.Minute},
		{"message: no time", nil, `The server had an error. You can retry your request.`, 0},
		{"message: try again later", nil, `Please try again later.`, 0},
		{"anthropic regain time", nil,
			`{"type":"error","error":{"type":"invalid_request_error","message":"You have reached your specified API usage limits. You will regain access on 2026-04-01 at 00:00 UTC."}}`,
			time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC).Sub(testNow)},
		{"reset header as epoch milliseconds", header("X-RateLimit-Reset", "1772370060000", "X-RateLimit-Remaining", "0"), "", 61 * time.Minute},
		{"reset header as epoch seconds", header("x-ratelimit-reset", "1772370030"), "", time.Hour + 30*time.Second},
		{"reset header as seconds to wait", header("x-ratelimit-reset", "42"), "", 42 * time.Second},
		{"reset header with room left", header("x-ratelimit-reset", "42", "x-ratelimit-remaining", "3"), "", 0},
		{"openrouter headers copied into the body", nil,
			`{"error":{"message":"Rate limit exceeded: free-models-per-day","code":429,"metadata":{"headers":{"X-RateLimit-Limit":"50","X-RateLimit-Remaining":"0","X-RateLimit-Reset":"1772377200000"}}}}`,
			3 * time.Hour},
		{"copied headers inside an upstream error passed on as a string", nil,
			`{"error":{"message":"Provider returned error","metadata":{"raw":"{\"error\":{\"headers\":{\"retry-after\":\"90\"}}}"}}}`,
			90 * time.Second},
		{"copied headers with numbers", nil, `{"metadata":{"headers":{"Retry-After":30}}}`, 30 * time.Second},
		{"retryDelay in an upstream error passed on as a string", nil,
			`{"error":{"metadata":{"raw":"{\"details\":[{\"retryDelay\":\"12s\"}]}"}}}`, 12 * time.Second},
		{"message: reset at a time without a zone", nil, `Usage limit reached for 5 hour. Your limit will reset at 2026-03-01 15:13:03`,
			3*time.Hour + 13*time.Minute + 3*time.Second},
		{"message: reset at a time with an offset", nil, `Your limit will reset at 2026-03-01 20:00 +0800`, 0},
		{"message: resets at a UTC time", nil, `Quota resets at 2026-03-02T00:00Z`, 12 * time.Hour},
		{"message: resets in", nil, `Your quota resets in 2 hours.`, 2 * time.Hour},
		// testNow is 12:00 UTC.
		{"message: reset at 3pm (UTC)", nil, `You have reached your usage limit. Your limit will reset at 3pm (UTC).`, 3 * time.Hour},
		{"message: resets at a time of day already past is tomorrow's", nil, `Your limit resets at 9:30 AM UTC`, 21*time.Hour + 30*time.Minute},
		{"message: resets 15:00 without a zone is UTC", nil, `daily limit reached, resets 15:00`, 3 * time.Hour},
		{"message: a time in a named zone", nil, `quota resets at 6:00 PM PST`, 14 * time.Hour}, // 18:00 PST is 02:00 UTC tomorrow
		{"message: a time with an offset", nil, `try again at 21:30 +08:00`, 90 * time.Minute},
		{"message: a bare hour is not a time", nil, `limit resets at 3 requests per window`, 0},
		{"message: available again after a date", nil, `Capacity available again after 2026-03-01T12:45:00Z.`, 45 * time.Minute},
		{"message: until a date and time", nil, `blocked until 2026-03-01 13:00 UTC`, time.Hour},
		{"message: an epoch after a separator", nil, `Rate limit exceeded|1772373600`, 2 * time.Hour},
		{"message: an epoch in the past is no advice", nil, `Rate limit exceeded|1735603200`, 0},
		{"body: a reset_at field", nil, `{"error":{"message":"usage limit reached","reset_at":"2026-03-01T12:30:00Z"}}`, 30 * time.Minute},
		{"body: a resetsAt epoch field", nil, `{"error":{"message":"limit","resetsAt":1772367600}}`, 20 * time.Minute},
		{"body: a retry_after field in seconds", nil, `{"error":{"message":"slow down","retry_after":42}}`, 42 * time.Second},
		{"body: a retryAfterMs field", nil, `{"detail":{"retryAfterMs":"1500"}}`, 1500 * time.Millisecond},
		{"body: a reset count is not a time", nil, `{"error":{"message":"limit","resets_remaining":3}}`, 0},
		{"latest source wins", header("Retry-After", "2", "retry-after-ms", "2500"),
			`{"error":{"message":"Please try again in 18s"}}`, 18 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := ParseAdvice(tc.header, []byte(tc.body), testNow)
			var want time.Time
			if tc.want != 0 {
				want = testNow.Add(tc.want)
			}
			if !a.NotBefore.Equal(want) {
				t.Errorf("NotBefore = %v, want %v", a.NotBefore, want)
			}
		})
	}
}

func TestParseAdviceShouldRetry(t *testing.T) {
	for v, want := range map[string]*bool{"true": new(true), "false": new(false), "": nil, "perhaps": nil} {
		got := ParseAdvice(header("x-should-retry", v), nil, testNow).ShouldRetry
		if (got == nil) != (want == nil) || (got != nil && *got != *want) {
			t.Errorf("x-should-retry %q: got %v, want %v", v, got, want)
		}
	}
}
