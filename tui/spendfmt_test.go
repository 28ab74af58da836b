package tui

import (
	"testing"
	"time"

	"parley/agent"
	"parley/internal/chat"
)

func TestSpentLabel(t *testing.T) {
	t.Parallel()
	cases := []struct {
		s    agent.Spent
		want string
	}{
		{agent.Spent{Tokens: 12_345, Cost: 0.042}, "spent $0.042 · 12.3k tok"},
		{agent.Spent{Tokens: 950}, "spent 950 tok"},
		{agent.Spent{Tokens: 1000, Cost: 0.0001}, "spent <$0.001 · 1k tok"},
	}
	for _, c := range cases {
		if got := spentLabel(c.s); got != c.want {
			t.Errorf("%+v: %q, want %q", c.s, got, c.want)
		}
	}
}

func TestLimitsLabel(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 14, 0, 0, 0, time.Local)
	for _, c := range []struct {
		r    chat.Remaining
		want string
	}{
		{chat.Remaining{Requests: 12, Tokens: 18000, RequestsReset: now.Add(3 * time.Minute), TokensReset: now.Add(time.Minute)}, "12 req · 18k tok left · resets 14:03"},
		{chat.Remaining{Requests: 0, Tokens: -1, RequestsReset: now.Add(20 * time.Second)}, "0 req left · resets 14:00"},
		{chat.Remaining{Requests: -1, Tokens: 900}, "900 tok left"},
	} {
		if got := limitsLabel(c.r, now); got != c.want {
			t.Errorf("%+v: %q, want %q", c.r, got, c.want)
		}
	}
}
