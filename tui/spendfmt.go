package tui

import (
	"strings"
	"time"

	"parley/agent"
	"parley/internal/chat"
)

// limitsLabel writes what a provider said is left of its limits, as the header shows it when
// little is: "12 req · 18k tok left · resets 14:03".
func limitsLabel(r chat.Remaining, now time.Time) string {
	var parts []string
	if r.Requests >= 0 {
		parts = append(parts, chat.FormatTokens(r.Requests)+" req")
	}
	if r.Tokens >= 0 {
		parts = append(parts, chat.FormatTokens(r.Tokens)+" tok")
	}
	s := strings.Join(parts, " · ") + " left"
	reset := r.RequestsReset
	if r.TokensReset.After(reset) {
		reset = r.TokensReset
	}
	if reset.After(now) {
		s += " · resets " + chat.FormatClock(reset, now)
	}
	return s
}

// spentLabel writes what a session spent as the header shows it: "$0.042 · 12.3k tok", or
// "12.3k tok" when nothing was priced.
func spentLabel(s agent.Spent) string {
	if s.Cost == 0 {
		return chat.FormatTokens(s.Tokens) + " tok"
	}
	return chat.FormatCost(s.Cost) + " · " + chat.FormatTokens(s.Tokens) + " tok"
}
