package chat

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

var allClasses = []Class{RateLimited, Overloaded, ServerError, Network, Timeout, QuotaExhausted, AuthFailed,
	CredentialsUnresolved, SpendLimitExceeded, ContextOverflow, ModelNotFound, BadRequest, ContentFilter,
	EmptyResponse, Cancelled, Interrupted}

func TestClassRetryableAndLabel(t *testing.T) {
	retryable := map[Class]bool{RateLimited: true, Overloaded: true, ServerError: true, Network: true,
		Timeout: true, Interrupted: true}
	labels := map[string]bool{}
	for _, c := range allClasses {
		if c.Retryable() != retryable[c] {
			t.Errorf("%s.Retryable() = %v", c, c.Retryable())
		}
		l := Label(c)
		if l == "" || l == string(c) || labels[l] {
			t.Errorf("Label(%s) = %q: want a distinct human label", c, l)
		}
		labels[l] = true
	}
	if Label(Overloaded) != "Provider overloaded" || Label(CredentialsUnresolved) != "API key not set" {
		t.Errorf("labels: %q, %q", Label(Overloaded), Label(CredentialsUnresolved))
	}
	if Label("from_the_future") != "from_the_future" {
		t.Errorf("an unknown class should be labelled with its name")
	}
}

// Every classification is built from its class: retryable as the class is, labelled with its
// name, saying the message it was given.
func TestNewClassification(t *testing.T) {
	for _, c := range []struct {
		class     Class
		retryable bool
		label     string
	}{
		{RateLimited, true, "Rate limited"},
		{Overloaded, true, "Provider overloaded"},
		{Network, true, "Network error"},
		{Timeout, true, "Timed out"},
		{Interrupted, true, "Interrupted"},
		{QuotaExhausted, false, "Quota exhausted"},
		{CredentialsUnresolved, false, "API key not set"},
		{SpendLimitExceeded, false, "Spend limit reached"},
		{BadRequest, false, "Bad request"},
		{EmptyResponse, false, "Empty response"},
		{"from_the_future", false, "from_the_future"},
	} {
		got := NewClassification(c.class, "what happened")
		want := Classification{Retryable: c.retryable, Class: c.class, Label: c.label, Message: "what happened"}
		if got != want {
			t.Errorf("NewClassification(%s) = %+v, want %+v", c.class, got, want)
		}
	}
}

func TestClassificationJSON(t *testing.T) {
	until := time.Date(2026, 3, 1, 14, 50, 18, 642000000, time.FixedZone("CET", 3600))
	for _, c := range []Classification{
		{Retryable: true, Class: RateLimited, RetryAfterUntil: until, Label: "Rate limited", Message: "slow down", Rule: "rate.words"},
		{Class: AuthFailed, Label: "Authentication failed", Message: "invalid x-api-key"},
	} {
		data, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var fields map[string]any
		if err := json.Unmarshal(data, &fields); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"retryable", "retry_class", "retry_after_until", "label", "message"} {
			if _, ok := fields[k]; !ok {
				t.Errorf("%s: field %q missing", data, k)
			}
		}
		if _, ok := fields["rule"]; ok != (c.Rule != "") {
			t.Errorf("%s: want rule present exactly when set", data)
		}
		if c.RetryAfterUntil.IsZero() {
			if fields["retry_after_until"] != nil {
				t.Errorf("%s: want retry_after_until null", data)
			}
		} else if s, _ := fields["retry_after_until"].(string); s != "2026-03-01T13:50:18.642Z" {
			t.Errorf("retry_after_until = %q, want RFC 3339 in UTC", s)
		}
		var back Classification
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		if back.Retryable != c.Retryable || back.Class != c.Class || !back.RetryAfterUntil.Equal(c.RetryAfterUntil) ||
			back.Label != c.Label || back.Message != c.Message || back.Rule != c.Rule {
			t.Errorf("round trip: %+v became %+v", c, back)
		}
	}

	var c Classification
	if err := json.Unmarshal([]byte(`{"retryable":true,"retry_class":"overloaded","retry_after_until":"2026-03-01T12:00:45Z"}`), &c); err != nil {
		t.Fatal(err)
	}
	if !c.RetryAfterUntil.Equal(time.Date(2026, 3, 1, 12, 0, 45, 0, time.UTC)) || c.Class != Overloaded || !c.Retryable {
		t.Errorf("decoded %+v", c)
	}
	err := json.Unmarshal([]byte(`{"retry_after_until":"next tuesday"}`), &c)
	if err == nil || !strings.Contains(err.Error(), "next tuesday") {
		t.Errorf("a bad time should fail to decode, got %v", err)
	}
}
