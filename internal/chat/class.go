package chat

import (
	"encoding/json"
	"time"
)

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
	// It is kept even when Retryable is false, so a hard quota can say when it resets.
	RetryAfterUntil time.Time `json:"retry_after_until"`
	// Label is a short human name for the class, such as "Provider overloaded".
	Label string `json:"label"`
	// Message is the provider's own message, or a description of the local failure.
	Message string `json:"message"`
	// Rule names the classification rule that decided, such as "quota.window" or "user:zhipu"
	// (see package retry); empty for a classification made without one.
	Rule string `json:"rule,omitempty"`
}

// Retryable reports whether a failure of class c can succeed if the same request is sent again.
// Interrupted is retryable, but only by hand: nothing arms a retry for it automatically.
func (c Class) Retryable() bool {
	switch c {
	case RateLimited, Overloaded, ServerError, Network, Timeout, Interrupted:
		return true
	}
	return false
}

// NewClassification is a failure of class c that message describes, retryable as c is and
// labelled with its name: every classification parley makes is built here. What only retry's
// rules know (a retryability of their own, the provider's time, the rule) is set on it after.
func NewClassification(c Class, message string) Classification {
	return Classification{Retryable: c.Retryable(), Class: c, Label: Label(c), Message: message}
}

var labels = map[Class]string{
	RateLimited:           "Rate limited",
	Overloaded:            "Provider overloaded",
	ServerError:           "Server error",
	Network:               "Network error",
	Timeout:               "Timed out",
	QuotaExhausted:        "Quota exhausted",
	AuthFailed:            "Authentication failed",
	CredentialsUnresolved: "API key not set",
	SpendLimitExceeded:    "Spend limit reached",
	ContextOverflow:       "Context too long",
	ModelNotFound:         "Model not found",
	BadRequest:            "Bad request",
	ContentFilter:         "Content filtered",
	EmptyResponse:         "Empty response",
	Cancelled:             "Cancelled",
	Interrupted:           "Interrupted",
}

// Label returns the short human name of c, such as "Provider overloaded". An unknown class,
// read from a newer database perhaps, is labelled with its own name.
func Label(c Class) string {
	if l, ok := labels[c]; ok {
		return l
	}
	return string(c)
}

// classificationJSON is the wire form of a Classification: retry_after_until is always
// present, as an RFC 3339 string or null; rule only when there is one.
type classificationJSON struct {
	Retryable       bool    `json:"retryable"`
	Class           Class   `json:"retry_class"`
	RetryAfterUntil *string `json:"retry_after_until"`
	Label           string  `json:"label"`
	Message         string  `json:"message"`
	Rule            string  `json:"rule,omitempty"`
}

// MarshalJSON encodes c with retry_after_until as an RFC 3339 time in UTC, or null when zero.
// Fractional seconds are kept so that a decoded time is never earlier than the advice.
func (c Classification) MarshalJSON() ([]byte, error) {
	w := classificationJSON{Retryable: c.Retryable, Class: c.Class, Label: c.Label, Message: c.Message, Rule: c.Rule}
	if !c.RetryAfterUntil.IsZero() {
		s := c.RetryAfterUntil.UTC().Format(time.RFC3339Nano)
		w.RetryAfterUntil = &s
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes the form MarshalJSON writes; a null or missing retry_after_until
// leaves RetryAfterUntil zero.
func (c *Classification) UnmarshalJSON(data []byte) error {
	var w classificationJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*c = Classification{Retryable: w.Retryable, Class: w.Class, Label: w.Label, Message: w.Message, Rule: w.Rule}
	if w.RetryAfterUntil != nil && *w.RetryAfterUntil != "" {
		t, err := time.Parse(time.RFC3339Nano, *w.RetryAfterUntil)
		if err != nil {
			return err
		}
		c.RetryAfterUntil = t
	}
	return nil
}
