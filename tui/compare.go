package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"parley/agent"
	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/sanitize"
	"parley/tui/transcript"
)

// This file owns comparing the versions of a reply: the table at the top of the version view
// that sets each version's model, tokens, cost, time to its first word and duration side by
// side.

// compareTable is the version view's table, one line per version, the one shown marked, the
// live one said, each cut to the width.
func (m *Model) compareTable() []string {
	st, v := m.styles, m.versions
	rows := [][]string{{"", "#", "model", "tokens", "cost", "first word", "took", ""}}
	for i, ver := range v.list {
		mark, state := " ", ""
		if i == v.shown {
			mark = "▸"
		}
		if !ver.Superseded {
			state = "live"
		}
		rows = append(rows, []string{mark, fmt.Sprint(i + 1), sanitize.String(transcript.ModelName(ver.Model)),
			tokensOut(ver.Usage), m.versionCost(ver), seconds(ver.FirstWord), seconds(ver.Took), state})
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for c, cell := range r {
			widths[c] = max(widths[c], lipgloss.Width(cell))
		}
	}
	var out []string
	for i, r := range rows {
		var b strings.Builder
		for c, cell := range r {
			b.WriteString(cell + strings.Repeat(" ", widths[c]-lipgloss.Width(cell)+2))
		}
		line := ansi.Truncate(strings.TrimRight(b.String(), " "), m.width, "…")
		switch {
		case i == 0:
			line = st.Muted.Render(line)
		case i-1 == v.shown:
			line = st.ReplyLabel.Render(line)
		}
		out = append(out, line)
	}
	return out
}

// listPrices are the built-in prices, for a screen with no spend guard to price with.
var listPrices = agent.DefaultPrices()

// versionCost is what a version cost at the known prices, "—" when its model has none.
func (m *Model) versionCost(v stored.Message) string {
	prices := listPrices
	if m.spend != nil {
		prices = m.spend.Prices
	}
	if c := prices.Of(v.Model).Cost(v.Usage); c > 0 {
		return chat.FormatCost(c)
	}
	return "—"
}

// tokensOut is a version's output tokens, "—" when its endpoint said none.
func tokensOut(u chat.Usage) string {
	if u.CompletionTokens == 0 {
		return "—"
	}
	return chat.FormatTokens(u.CompletionTokens) + " out"
}

// seconds writes a duration to a tenth of a second, "—" for none.
func seconds(d time.Duration) string {
	if d <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}
