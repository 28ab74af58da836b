package retry

import (
	"testing"
	"time"

	"parley/internal/chat"
)

// The server's numbers win: a reset the provider states within 12 hours makes a failure worded
// as a quota, a daily window or a usage cap a scheduled wait, unless only money or a plan cures
// it. testNow is 12:00 UTC.
func TestStatedResetIsAScheduledWait(t *testing.T) {
	gemini := `[{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.",` +
		`"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2000s"}]}}]`
	for _, tc := range []struct {
		statusCase
		rule string
	}{
		{statusCase{"quota words with Retry-After", 429, header("Retry-After", "3000"),
			`{"error":{"message":"quota exceeded","type":"rate_limit"}}`, chat.RateLimited, true, 50 * time.Minute},
			"quota.words+" + ruleStatedReset},
		{statusCase{"tokens per day with try again in", 429, nil,
			`{"error":{"message":"Rate limit reached for model ` + "`llama-3.3-70b`" + ` on tokens per day (TPD): Limit 100000, Used 99000, Requested 2000. Please try again in 42m12s.","type":"tokens","code":"rate_limit_exceeded"}}`,
			chat.RateLimited, true, 42*time.Minute + 12*time.Second}, "quota.window+" + ruleStatedReset},
		{statusCase{"gemini's quota with a retryDelay", 429, nil, gemini, chat.RateLimited, true, 2000 * time.Second},
			"quota.words+" + ruleStatedReset},
		{statusCase{"a usage limit that resets at 3pm (UTC)", 429, nil,
			`{"type":"error","error":{"type":"rate_limit_error","message":"You have reached your usage limit. Your limit will reset at 3pm (UTC)."}}`,
			chat.RateLimited, true, 3 * time.Hour}, "quota.words+" + ruleStatedReset},
		{statusCase{"an owner's usage cap that frees within the day", 400, nil,
			`{"type":"error","error":{"type":"invalid_request_error","message":"You have reached your specified API usage limits. You will regain access on 2026-03-01 at 18:00 UTC."}}`,
			chat.RateLimited, true, 6 * time.Hour}, "spend.limit+" + ruleStatedReset},

		// The verb a reset is stated with is any that says the limit frees by itself.
		{statusCase{"a daily allowance that renews at a stated time", 429, nil,
			`{"error":{"message":"Your daily request allowance renews at 18:30 UTC."}}`,
			chat.RateLimited, true, 6*time.Hour + 30*time.Minute}, "quota.window+" + ruleStatedReset},
		// A limit the provider says to try again later after is no cap the owner must raise.
		{statusCase{"usage limits to try again later after", 429, nil,
			`{"error":{"message":"You have exceeded your usage limits for now; please try again later."}}`,
			chat.RateLimited, true, 0}, "status.rate"},

		// Final whatever time is stated: money, a plan without the feature, a limit of nothing.
		{statusCase{"no credits, with a time", 429, header("Retry-After", "600"),
			`{"error":{"message":"Your credit balance is too low to access the API. Please go to Plans & Billing to upgrade or purchase credits.","type":"invalid_request_error"}}`,
			chat.QuotaExhausted, false, 10 * time.Minute}, "quota.words"},
		{statusCase{"openai's insufficient_quota, with a time", 429, header("Retry-After", "20"),
			`{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}}`,
			chat.QuotaExhausted, false, 20 * time.Second}, "quota.words"},
		{statusCase{"payment required, with a time", 402, header("Retry-After", "60"), `{"error":{"message":"Payment Required"}}`,
			chat.QuotaExhausted, false, time.Minute}, "quota.words"},
		{statusCase{"limit: 0, with a retryDelay", 429, nil,
			`{"error":{"code":429,"message":"Quota exceeded for metric: generate_content_free_tier_requests, limit: 0, model: gemini-2.5-pro. Please retry in 21s.","status":"RESOURCE_EXHAUSTED"}}`,
			chat.QuotaExhausted, false, 21 * time.Second}, "quota.limit-zero"},
		{statusCase{"a feature the plan lacks", 403, header("Retry-After", "30"),
			`{"error":{"message":"This model is not available on your current plan. Upgrade to a Pro plan to use it.","code":"quota_exceeded"}}`,
			chat.QuotaExhausted, false, 30 * time.Second}, "quota.words"},

		// A trial's allowance for the month, worded without "quota": no wait of hours cures it.
		{statusCase{"a trial's allowance for the month", 429, nil,
			`{"error":{"message":"The trial allowance for this month has been used up."}}`,
			chat.QuotaExhausted, false, 0}, "quota.window"},

		// A daily window that states a wait of seconds: the provider's per-minute hint, not the
		// day's reset. Retrying on it would fail again all day.
		{statusCase{"a daily quota with a retryDelay of seconds", 429, nil,
			`[{"error":{"code":429,"message":"Quota exceeded for quota metric 'Generate Content API requests per day'","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37s"}]}}]`,
			chat.QuotaExhausted, false, 37 * time.Second}, "quota.window+" + ruleImplausibleReset},
		// A reset beyond 12 hours is a hard quota, shown with its time.
		{statusCase{"a daily quota that resets tomorrow", 429, header("Retry-After", "50400"),
			`{"error":{"message":"You exceeded your daily quota"}}`, chat.QuotaExhausted, false, 14 * time.Hour}, "quota.window"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, until := tc.classify()
			if c.Class != tc.class || c.Retryable != tc.retryable || !c.RetryAfterUntil.Equal(until) || c.Rule != tc.rule {
				t.Errorf("got %s retryable=%v until %v by %s; want %s retryable=%v until %v by %s",
					c.Class, c.Retryable, c.RetryAfterUntil, c.Rule, tc.class, tc.retryable, until, tc.rule)
			}
			if c.Label != classLabel(c) {
				t.Errorf("label %q, want %q", c.Label, classLabel(c))
			}
		})
	}
}
