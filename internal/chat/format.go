package chat

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// FormatCost writes an amount of US dollars: three decimals under a dollar, two from there,
// and "<$0.001" for a cost too small to show.
func FormatCost(usd float64) string {
	switch {
	case usd == 0:
		return "$0"
	case usd < 0.0005:
		return "<$0.001"
	case usd < 1:
		return fmt.Sprintf("$%.3f", usd)
	}
	return fmt.Sprintf("$%.2f", usd)
}

// FormatTokens writes a token count briefly: 950, 12.3k, 1.2M.
func FormatTokens(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(n)
	case n < 1_000_000:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/1e3)) + "k"
	}
	return trimZero(fmt.Sprintf("%.1f", float64(n)/1e6)) + "M"
}

func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }

// SilenceShown is how long a reply may send no text after its first before the chat screen
// counts the silence (no text for 45s) and print mode says it on stderr: longer than a
// model's ordinary pauses, short enough that a stalled stream shows.
const SilenceShown = 5 * time.Second

// FormatElapsed writes a wait as a status line counts it: 8s, 1m 12s, 1h 3m.
func FormatElapsed(d time.Duration) string {
	d = max(d, 0).Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm %ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh %dm", int(d.Hours()), int(d.Minutes())%60)
}

// FormatClock is at as the operator's clock shows it: "14:50", or "Mar 2 14:50" when it is not
// on the same day as now, "Mar 2 2027 14:50" in another year. Print mode and the chat screen
// both say times this way.
func FormatClock(at, now time.Time) string { return FormatClockIn(at, now, time.Local) }

// FormatClockIn is FormatClock for an operator in loc: what a parley running in another zone
// shows.
func FormatClockIn(at, now time.Time, loc *time.Location) string {
	return clock(at.In(loc), now.In(loc), "15:04")
}

// FormatClockSeconds is FormatClock to the second ("14:03:20"), for waits short enough that
// the seconds matter.
func FormatClockSeconds(at, now time.Time) string { return clock(at.Local(), now.Local(), "15:04:05") }

// FormatHeld says why a run sent nothing: a provider said at saidAt not to come back before
// until (endpoint memory), "held: the endpoint said at 07:13 to wait until 07:23 · nothing
// sent". The run that says it heard nothing itself, so it tells when the wait was said.
func FormatHeld(saidAt, until, now time.Time) string {
	return fmt.Sprintf("held: the endpoint said at %s to wait until %s · nothing sent", FormatClock(saidAt, now), FormatClock(until, now))
}

// FormatDate is at as lists of sessions and messages show it: "2026-03-01 14:50", local time.
func FormatDate(at time.Time) string { return at.Local().Format("2006-01-02 15:04") }

// clock writes at with the time of day layout, preceded by as much of the date as now needs,
// both in the zone they carry.
func clock(at, now time.Time, layout string) string {
	if y, m, d := at.Date(); y == now.Year() && m == now.Month() && d == now.Day() {
		return at.Format(layout)
	}
	if at.Year() != now.Year() {
		return at.Format("Jan 2 2006 " + layout)
	}
	return at.Format("Jan 2 " + layout)
}

// FormatRetry says whether trying c's run again can help, as print mode's last line and an
// export say it: "not retryable", "retryable", "retryable after 14:03:20", or, for a hard quota
// or a spend limit with its time, "not retryable; not before Mar 2 08:00".
func FormatRetry(c Classification, now time.Time) string {
	if !c.Retryable {
		if c.RetryAfterUntil.After(now) {
			return "not retryable; not before " + FormatClock(c.RetryAfterUntil, now)
		}
		return "not retryable"
	}
	if !c.RetryAfterUntil.IsZero() {
		return "retryable after " + FormatClockSeconds(c.RetryAfterUntil, now)
	}
	return "retryable"
}

// Plural is n and noun, with an s when n is not 1: "1 message", "3 messages".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
