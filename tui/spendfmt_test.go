package tui

import (
	"testing"

	"parley/agent"
)

func TestSpentLabel(t *testing.T) {
	cases := []struct {
		s    agent.Spent
		want string
	}{
		{agent.Spent{Tokens: 12_345, Cost: 0.042}, "$0.042 · 12.3k tok"},
		{agent.Spent{Tokens: 950}, "950 tok"},
		{agent.Spent{Tokens: 1000, Cost: 0.0001}, "<$0.001 · 1k tok"},
	}
	for _, c := range cases {
		if got := spentLabel(c.s); got != c.want {
			t.Errorf("%+v: %q, want %q", c.s, got, c.want)
		}
	}
}
