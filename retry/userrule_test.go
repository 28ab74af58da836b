package retry

import (
	"errors"
	"strings"
	"testing"
	"time"

	"parley/internal/chat"
)

func mustRule(t *testing.T, name string, status int, code, typ, message, class string, retryable *bool, wait string) UserRule {
	t.Helper()
	r, err := NewUserRule(name, status, code, typ, message, class, retryable, wait)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestNewUserRuleErrors(t *testing.T) {
	yes := true
	for _, tc := range []struct {
		name, code, message, class, wait string
		status                           int
		retryable                        *bool
		want                             []string // in the one-line error
	}{
		{"plan", "", "", "quota_exhausted", "", 0, nil, []string{`classify rule "plan"`, "set status, code, type or message"}},
		{"plan", "1113", "", "quota", "", 0, nil, []string{`class "quota"`, "use one of rate_limited, overloaded", "content_filter"}},
		{"plan", "1113", "", "", "", 0, nil, []string{`class ""`, "use one of"}},
		{"", "1113", "", "cancelled", "", 0, nil, []string{"unnamed classify rule", `class "cancelled"`}},
		{"busy", "", "model (busy", "overloaded", "", 0, nil, []string{`classify rule "busy"`, `message "model (busy"`, "missing closing )", "escape"}},
		{"busy", "", "", "overloaded", "", 42, nil, []string{"status 42", "100 to 599"}},
		{"busy", "1305", "", "overloaded", "soon", 0, nil, []string{`wait "soon"`, "30s, 5m or 2h"}},
		{"busy", "1305", "", "overloaded", "-5s", 0, nil, []string{`wait "-5s"`}},
		{"plan", "1308", "", "quota_exhausted", "", 0, &yes, []string{"quota_exhausted is never retried", "rate_limited, overloaded, server_error, network, timeout"}},
	} {
		_, err := NewUserRule(tc.name, tc.status, tc.code, "", tc.message, tc.class, tc.retryable, tc.wait)
		if err == nil {
			t.Errorf("%+v: no error", tc)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") {
			t.Errorf("error spans lines: %q", msg)
		}
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("error %q lacks %q", msg, w)
			}
		}
	}
}

func TestNewUserRuleBuilds(t *testing.T) {
	no := false
	r := mustRule(t, "zhipu-plan", 429, "1308", "", `(?i)usage limit`, "rate_limited", &no, "90m")
	if r.Class != chat.RateLimited || r.Retryable || r.Wait != 90*time.Minute || !r.Message.MatchString("Usage limit reached") {
		t.Errorf("built %+v", r)
	}
	if r := mustRule(t, "", 0, "1305", "", "", "overloaded", nil, ""); !r.Retryable || r.Wait != 0 {
		t.Errorf("retryable left out should follow the class: %+v", r)
	}
}

func TestClassifierUserRules(t *testing.T) {
	zhipu := Failure{Phase: Status, Status: 429, Now: testNow,
		Body: []byte(`{"error":{"code":"1308","message":"Usage limit reached for 5 hour. Your limit will reset at 2026-03-01 15:00:00"}}`)}
	gateway := Failure{Phase: Status, Status: 502, Now: testNow, Header: header("x-should-retry", "false"),
		Body: []byte(`{"error":{"message":"Provider returned error","type":"gateway","metadata":{"raw":"{\"error\":{\"message\":\"queue full, come back later\",\"type\":\"capacity\"}}"}}}`)}
	busy := mustRule(t, "queue-full", 0, "", "", `^queue full`, "overloaded", nil, "20s")
	for _, tc := range []struct {
		name  string
		rules []UserRule
		f     Failure
		want  chat.Classification
	}{
		{"no rules: built-in", nil, zhipu, chat.Classification{Class: chat.RateLimited, Retryable: true,
			Rule: "quota.window+" + ruleStatedReset, RetryAfterUntil: testNow.Add(3 * time.Hour)}},
		{"status and code match; unnamed is its position; the server's time is kept",
			[]UserRule{busy, mustRule(t, "", 429, "1308", "", "", "rate_limited", nil, "")}, zhipu,
			chat.Classification{Class: chat.RateLimited, Retryable: true, Rule: "user:2", RetryAfterUntil: testNow.Add(3 * time.Hour)}},
		{"a status that differs does not match", []UserRule{mustRule(t, "x", 400, "1308", "", "", "rate_limited", nil, "")}, zhipu,
			chat.Classification{Class: chat.RateLimited, Retryable: true, Rule: "quota.window+" + ruleStatedReset,
				RetryAfterUntil: testNow.Add(3 * time.Hour)}},
		{"first match wins; the message is the innermost; wait replaces the advice; x-should-retry does not overrule",
			[]UserRule{busy, mustRule(t, "later", 0, "", "capacity", "", "rate_limited", nil, "")}, gateway,
			chat.Classification{Class: chat.Overloaded, Retryable: true, Rule: "user:queue-full", RetryAfterUntil: testNow.Add(20 * time.Second)}},
		{"type matches at any depth", []UserRule{mustRule(t, "later", 0, "", "capacity", "", "rate_limited", nil, "")}, gateway,
			chat.Classification{Class: chat.RateLimited, Retryable: true, Rule: "user:later"}},
		{"every field must match", []UserRule{mustRule(t, "both", 0, "", "capacity", "^Provider", "bad_request", nil, "")}, gateway,
			chat.Classification{Class: chat.Overloaded, Rule: "overloaded.words+" + ruleShouldRetry}},
		{"never a failure without an answer", []UserRule{mustRule(t, "any", 0, "", "", ".", "bad_request", nil, "")},
			Failure{Phase: BeforeHeaders, Err: errors.New("connection refused"), Now: testNow},
			chat.Classification{Class: chat.Network, Retryable: true, Rule: "net.refused-words"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Classifier{Rules: tc.rules}.Classify(tc.f)
			if c.Class != tc.want.Class || c.Retryable != tc.want.Retryable || c.Rule != tc.want.Rule ||
				!c.RetryAfterUntil.Equal(tc.want.RetryAfterUntil) {
				t.Errorf("got %s retryable=%v rule %s until %v; want %s retryable=%v rule %s until %v",
					c.Class, c.Retryable, c.Rule, c.RetryAfterUntil, tc.want.Class, tc.want.Retryable, tc.want.Rule, tc.want.RetryAfterUntil)
			}
			if c.Label != classLabel(c) || c.Message == "" {
				t.Errorf("label %q message %q", c.Label, c.Message)
			}
		})
	}
}
