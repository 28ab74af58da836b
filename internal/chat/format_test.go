package chat

import (
	"testing"
	"time"
)

func TestFormats(t *testing.T) {
	cases := []struct{ got, want string }{
		{FormatCost(0), "$0"},
		{FormatCost(0.0001), "<$0.001"},
		{FormatCost(0.042), "$0.042"},
		{FormatCost(0.9994), "$0.999"},
		{FormatCost(12.345), "$12.35"},
		{FormatTokens(950), "950"},
		{FormatTokens(1000), "1k"},
		{FormatTokens(12_345), "12.3k"},
		{FormatTokens(2_360_000), "2.4M"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("row %d: %q, want %q", i, c.got, c.want)
		}
	}
}

// Times are on the operator's clock, with the date when it is another day there; an operator
// in another zone (FormatClockIn) sees the same instant on their own.
func TestFormatClock(t *testing.T) {
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.Local)
	kolkata, utcNow := time.FixedZone("IST", 5*3600+1800), time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC) // 22:30 in Kolkata
	for _, c := range []struct {
		at, now time.Time
		in      *time.Location // the operator's zone; nil for the process's own
		want    string
	}{
		{time.Date(2026, 11, 30, 14, 50, 0, 0, time.Local), now, nil, "14:50"},
		{time.Date(2026, 12, 1, 0, 5, 0, 0, time.Local), now, nil, "Dec 1 00:05"},
		{time.Date(2027, 1, 2, 8, 0, 0, 0, time.Local), now, nil, "Jan 2 2027 08:00"},
		{time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC), utcNow, kolkata, "23:30"},
		{time.Date(2026, 11, 30, 18, 40, 0, 0, time.UTC), utcNow, kolkata, "Dec 1 00:10"},
		{time.Date(2026, 12, 31, 19, 0, 0, 0, time.UTC), utcNow, kolkata, "Jan 1 2027 00:30"},
	} {
		got := FormatClock(c.at, c.now)
		if c.in != nil {
			got = FormatClockIn(c.at, c.now, c.in)
		}
		if got != c.want {
			t.Errorf("at %v, now %v, in %v: %q, want %q", c.at, c.now, c.in, got, c.want)
		}
	}
}

func TestFormatHeldSaysWhenTheWaitWasSaid(t *testing.T) {
	now := time.Date(2026, 11, 30, 7, 20, 0, 0, time.Local)
	said, until := time.Date(2026, 11, 30, 7, 13, 0, 0, time.Local), time.Date(2026, 11, 30, 7, 23, 0, 0, time.Local)
	if got, want := FormatHeld(said, until, now), "held: the endpoint said at 07:13 to wait until 07:23 · nothing sent"; got != want {
		t.Errorf("FormatHeld = %q, want %q", got, want)
	}
}

func TestFormatRetry(t *testing.T) {
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.Local)
	for _, c := range []struct {
		c    Classification
		want string
	}{
		{Classification{Class: AuthFailed}, "not retryable"},
		{Classification{Class: Overloaded, Retryable: true}, "retryable"},
		{Classification{Class: RateLimited, Retryable: true, RetryAfterUntil: now.Add(200 * time.Second)}, "retryable after 09:03:20"},
		// A hard quota, or a spend limit, says when it frees.
		{Classification{Class: QuotaExhausted, RetryAfterUntil: now.Add(26 * time.Hour)}, "not retryable; not before Dec 1 11:00"},
		{Classification{Class: QuotaExhausted, RetryAfterUntil: now.Add(-time.Hour)}, "not retryable"},
	} {
		if got := FormatRetry(c.c, now); got != c.want {
			t.Errorf("FormatRetry(%+v) = %q, want %q", c.c, got, c.want)
		}
	}
}
