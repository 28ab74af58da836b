package retry_test

import (
	"testing"

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
