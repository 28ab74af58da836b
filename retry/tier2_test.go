package retry_test

import (
	"testing"
	"time"

	"parley/internal/chat"
	"parley/retry"
	"parley/retry/retrytest"
)

// The machine itself holds to the table both front ends are tested against.
func TestTier2Cases(t *testing.T) {
	for _, c := range retrytest.Tier2Cases {
		var m retry.Tier2
		stored := chat.RunResult{RunID: 1, AnchorID: 1, Status: chat.StatusFailed, Retry: &c.Class, Attempts: 1}
		if !m.Arm(stored, retrytest.Tier2Failed) {
			t.Errorf("%s: not armed", c.Name)
			continue
		}
		if got := m.Due().Sub(retrytest.Tier2Failed); got != c.Due {
			t.Errorf("%s: due after %v, want %v", c.Name, got, c.Due)
		}
		if got := m.Waiting(retrytest.Tier2Failed.Add(c.Elapsed)); got != c.Shown {
			t.Errorf("%s: %q, want %q", c.Name, got, c.Shown)
		}
		if got := retry.FallbackOffered(c.Class); got != c.Fallback {
			t.Errorf("%s: fallback offered %v, want %v", c.Name, got, c.Fallback)
		}
	}
}

// Tier 1's wait is worded once for both front ends: a countdown in whole seconds, rounded up,
// none once the attempt is being sent, and the retry budget's wait as a time of day.
func TestReconnecting(t *testing.T) {
	now := time.Date(2026, 3, 2, 14, 3, 0, 0, time.UTC)
	overloaded := chat.Classification{Retryable: true, Class: chat.Overloaded, Label: "Provider overloaded"}
	retrying := chat.Event{Kind: chat.EventRetrying, Attempt: 2, MaxAttempts: 3, Class: overloaded}
	budget := retrying
	budget.BudgetSpent = true
	for _, c := range []struct {
		name string
		ev   chat.Event
		due  time.Time
		want string
	}{
		{"waiting", retrying, now.Add(1200 * time.Millisecond), "Provider overloaded — reconnecting, attempt 2/3 in 2s"},
		{"being sent", retrying, time.Time{}, "Provider overloaded — reconnecting, attempt 2/3"},
		{"budget", budget, now.Add(20 * time.Second), "retry budget spent — next retry at 14:03:20"},
		{"budget, being sent", budget, time.Time{}, "Provider overloaded — reconnecting, attempt 2/3"},
	} {
		if got := retry.Reconnecting(c.ev, c.due, now); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
