package retry

import (
	"net/http"
	"testing"
	"time"

	"parley/internal/chat"
)

func TestParseRemaining(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header http.Header
		want   chat.Remaining
		ok     bool
	}{
		{"openai", header("x-ratelimit-limit-requests", "500", "x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "5s",
			"x-ratelimit-limit-tokens", "30000", "x-ratelimit-remaining-tokens", "18000", "x-ratelimit-reset-tokens", "24ms"),
			chat.Remaining{Requests: 0, RequestLimit: 500, RequestsReset: testNow.Add(5 * time.Second),
				Tokens: 18000, TokenLimit: 30000, TokensReset: testNow.Add(24 * time.Millisecond)}, true},
		{"anthropic", header("anthropic-ratelimit-requests-limit", "50", "anthropic-ratelimit-requests-remaining", "12",
			"anthropic-ratelimit-requests-reset", "2026-03-01T12:00:30Z", "anthropic-ratelimit-tokens-remaining", "900",
			"anthropic-ratelimit-tokens-reset", "2026-03-01T12:01:00Z"),
			chat.Remaining{Requests: 12, RequestLimit: 50, RequestsReset: testNow.Add(30 * time.Second),
				Tokens: 900, TokensReset: testNow.Add(time.Minute)}, true},
		{"plain remaining with an epoch reset", header("X-RateLimit-Limit", "20", "X-RateLimit-Remaining", "3", "X-RateLimit-Reset", "1772366460000"),
			chat.Remaining{Requests: 3, RequestLimit: 20, RequestsReset: testNow.Add(time.Minute), Tokens: -1}, true},
		{"none", header("content-type", "text/event-stream"), chat.Remaining{Requests: -1, Tokens: -1}, false},
		{"garbage", header("x-ratelimit-remaining-requests", "lots"), chat.Remaining{Requests: -1, Tokens: -1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ParseRemaining(tc.header, testNow)
			tc.want.SaidAt = testNow
			got.RequestsReset, got.TokensReset = got.RequestsReset.UTC(), got.TokensReset.UTC()
			if ok != tc.ok || got != tc.want {
				t.Errorf("got %+v %v, want %+v %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestRemainingHold(t *testing.T) {
	reset := testNow.Add(5 * time.Second)
	for _, tc := range []struct {
		name   string
		r      chat.Remaining
		tokens int
		at     time.Time
		until  time.Time
	}{
		{"no requests left", chat.Remaining{Requests: 0, RequestsReset: reset, Tokens: -1}, 100, testNow, reset},
		{"no requests left, refilled", chat.Remaining{Requests: 0, RequestsReset: reset, Tokens: -1}, 100, reset, time.Time{}},
		{"no requests left, reset unknown", chat.Remaining{Requests: 0, Tokens: -1}, 100, testNow, time.Time{}},
		{"requests left", chat.Remaining{Requests: 3, RequestsReset: reset, Tokens: -1}, 100, testNow, time.Time{}},
		{"too few tokens", chat.Remaining{Requests: 3, Tokens: 50, TokensReset: reset.Add(time.Second)}, 100, testNow, reset.Add(time.Second)},
		{"enough tokens", chat.Remaining{Requests: 3, Tokens: 500, TokensReset: reset}, 100, testNow, time.Time{}},
		{"both: the later reset", chat.Remaining{Requests: 0, RequestsReset: reset, Tokens: 10, TokensReset: reset.Add(time.Minute)}, 100, testNow,
			reset.Add(time.Minute)},
		{"nothing said", chat.Remaining{Requests: -1, Tokens: -1}, 100, testNow, time.Time{}},
	} {
		until, held := Hold(tc.r, tc.tokens, tc.at)
		if held != !tc.until.IsZero() || !until.Equal(tc.until) {
			t.Errorf("%s: held %v until %v, want until %v", tc.name, held, until, tc.until)
		}
	}
}

func TestRemainingLow(t *testing.T) {
	reset := testNow.Add(time.Minute)
	for _, tc := range []struct {
		r    chat.Remaining
		want bool
	}{
		{chat.Remaining{Requests: 12, RequestLimit: 500, RequestsReset: reset, Tokens: -1}, true},
		{chat.Remaining{Requests: 120, RequestLimit: 500, RequestsReset: reset, Tokens: -1}, false},
		{chat.Remaining{Requests: 120, RequestLimit: 500, RequestsReset: reset, Tokens: 2000, TokenLimit: 30000, TokensReset: reset}, true},
		{chat.Remaining{Requests: 4, RequestsReset: reset, Tokens: -1}, true},
		{chat.Remaining{Requests: 4, RequestsReset: testNow, Tokens: -1}, false}, // refilled
		{chat.Remaining{Requests: -1, Tokens: -1}, false},
	} {
		if got := Low(tc.r, testNow); got != tc.want {
			t.Errorf("%+v: low %v, want %v", tc.r, got, tc.want)
		}
	}
}
