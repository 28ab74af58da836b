package tui

import (
	"parley/agent"
	"parley/internal/chat"
)

// spentLabel writes what a session spent as the header shows it: "$0.042 · 12.3k tok", or
// "12.3k tok" when nothing was priced.
func spentLabel(s agent.Spent) string {
	if s.Cost == 0 {
		return chat.FormatTokens(s.Tokens) + " tok"
	}
	return chat.FormatCost(s.Cost) + " · " + chat.FormatTokens(s.Tokens) + " tok"
}
