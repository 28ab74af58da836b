package retry

import (
	"net/http"
	"testing"
	"time"

	"parley/internal/chat"
)

// A wait too large to represent is still a fact: the server said not before a time further than
// anything parley can hold. It is a hard quota, said with the farthest time parley can hold,
// never ignored and never re-sent.
func TestWaitsOutOfRangeAreHardQuotas(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header http.Header
		body   string
		want   time.Time
	}{
		{"Retry-After beyond int64", header("Retry-After", "999999999999999999999"), "", farthest},
		{"Retry-After of int64's largest", header("Retry-After", "9223372036854775807"), "", farthest},
		{"retry-after-ms 1e20", header("retry-after-ms", "1e20"), "", farthest},
		{"try again in 99999999999999h", nil, `{"error":{"message":"Rate limit reached. Please try again in 99999999999999h."}}`, farthest},
		{"retry after N seconds in words", nil, `{"error":{"message":"Please retry after 99999999999999999999 seconds"}}`, farthest},
		{"gemini's retryDelay", nil, `[{"error":{"code":429,"message":"Resource exhausted.","status":"RESOURCE_EXHAUSTED",` +
			`"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"99999999999999999s"}]}}]`, farthest},
		{"a body's retry_after", nil, `{"error":{"message":"rate limited","retry_after":1e30}}`, farthest},
		{"a reset header in seconds past the epoch's range", header("x-ratelimit-reset-requests", "1e25"), "", farthest},
		{"a reset header as a Go duration past the range", header("x-ratelimit-reset-tokens", "3000000h"), "", farthest},
		// Within range, a reset past 12 hours keeps its own time.
		{"Retry-After of a day", header("Retry-After", "86400"), "", testNow.Add(24 * time.Hour)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Failure{Phase: Status, Status: http.StatusTooManyRequests, Header: tc.header, Body: []byte(tc.body), Now: testNow}
			if tc.body == "" {
				f.Body = []byte(`{"error":{"message":"Too Many Requests","type":"rate_limit_error"}}`)
			}
			c := Classify(f)
			if c.Class != chat.QuotaExhausted || c.Retryable || !c.RetryAfterUntil.Equal(tc.want) {
				t.Fatalf("got %s retryable=%v until %v by %s; want quota_exhausted, not retryable, until %v",
					c.Class, c.Retryable, c.RetryAfterUntil, c.Rule, tc.want)
			}
			if d := DefaultPolicy().Decide(c, 1, false, testNow); d.Retry || d.HandOff {
				t.Errorf("Tier 1 decides %+v: a hard quota is neither re-sent nor handed to Tier 2", d)
			}
		})
	}
}

// Negative and absurdly small numbers still say nothing: a wait already over is no advice.
func TestWaitsBelowZeroAreNoAdvice(t *testing.T) {
	for _, h := range []http.Header{
		header("Retry-After", "-999999999999999999999"),
		header("retry-after-ms", "-1e20"),
		header("Retry-After", "NaN"),
	} {
		if a := ParseAdvice(h, nil, testNow); !a.NotBefore.IsZero() {
			t.Errorf("%v: advice %v, want none", h, a.NotBefore)
		}
	}
}

// When the server's fields disagree, the one that still means something wins: an absolute
// reset already past says nothing beside a relative wait ahead.
func TestDisagreeingResetsUseTheOneAhead(t *testing.T) {
	ahead := testNow.Add(30 * time.Second)
	for _, tc := range []struct {
		name   string
		header http.Header
		body   string
	}{
		{"an RFC 3339 reset past, Retry-After ahead", header("anthropic-ratelimit-requests-reset", "2026-03-01T11:58:00Z",
			"anthropic-ratelimit-requests-remaining", "0", "Retry-After", "30"), ""},
		{"a Unix reset past, retry-after-ms ahead", header("x-ratelimit-reset", "1772366280000", "retry-after-ms", "30000"), ""},
		{"a body's reset_at past, its retry_after ahead", nil,
			`{"error":{"message":"rate limited","reset_at":"2026-03-01T11:59:00Z","retry_after":30}}`},
		{"a time of day just past, a wait ahead", nil,
			`{"error":{"message":"Rate limit reached; the limit resets at 11:59 UTC. Please try again in 30s."}}`},
		{"a date just past, a wait ahead", nil,
			`{"error":{"message":"Limit resets at: 2026-03-01 11:59:30 UTC. Retry after 30 seconds."}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if a := ParseAdvice(tc.header, []byte(tc.body), testNow); !a.NotBefore.Equal(ahead) {
				t.Errorf("advice %v, want %v", a.NotBefore, ahead)
			}
		})
	}
}
