// Package retry decides whether a failed request to an LLM endpoint can succeed if sent again,
// and when. It is pure policy and classification: it performs no I/O and never sleeps.
package retry

import "time"

// Class names why a run failed. The set is closed; every failed run carries exactly one.
type Class string

// The classes a failure can take. See Classification for what each promises.
const (
	RateLimited           Class = "rate_limited"
	Overloaded            Class = "overloaded"
	ServerError           Class = "server_error"
	Network               Class = "network"
	Timeout               Class = "timeout"
	QuotaExhausted        Class = "quota_exhausted"
	AuthFailed            Class = "auth_failed"
	CredentialsUnresolved Class = "credentials_unresolved"
	SpendLimitExceeded    Class = "spend_limit_exceeded"
	ContextOverflow       Class = "context_overflow"
	ModelNotFound         Class = "model_not_found"
	BadRequest            Class = "bad_request"
	ContentFilter         Class = "content_filter"
	EmptyResponse         Class = "empty_response"
	Cancelled             Class = "cancelled"
	Interrupted           Class = "interrupted"
)

// Classification is the tier boundary: what a failed run tells the next tier. It is persisted
// on every failed run, and Tier 2 arms only from a stored Classification with Retryable set.
type Classification struct {
	// Retryable reports whether sending the same request again can succeed.
	Retryable bool `json:"retryable"`
	// Class is the reason for the failure.
	Class Class `json:"retry_class"`
	// RetryAfterUntil is the earliest time the provider advised retrying at; zero when it gave none.
	RetryAfterUntil time.Time `json:"retry_after_until,omitzero"`
	// Label is a short human name for the class, such as "Provider overloaded".
	Label string `json:"label"`
	// Message is the provider's own message, or a description of the local failure.
	Message string `json:"message"`
}

// Clock tells the time and waits. Everything that waits on retry advice takes one, so tests of
// backoff and countdowns run on a fake clock.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives once d has passed.
	After(d time.Duration) <-chan time.Time
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns the current time.
func (SystemClock) Now() time.Time { return time.Now() }

// After waits for d on the real clock.
func (SystemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
