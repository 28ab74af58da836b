package retry

import (
	"testing"
	"time"

	"parley/internal/chat"
)

func TestRetryBudget(t *testing.T) {
	b := DefaultRetryBudget()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	sends := func(firsts, retries int, at time.Time) []chat.Send {
		var out []chat.Send
		for range firsts {
			out = append(out, chat.Send{At: at})
		}
		for range retries {
			out = append(out, chat.Send{At: at, Retry: true})
		}
		return out
	}
	cases := []struct {
		name   string
		sends  []chat.Send
		ok     bool
		wantAt time.Time
	}{
		{"nothing sent", nil, true, now},
		{"ten retries fit with no traffic", sends(0, 9, now.Add(-time.Second)), true, now},
		{"the eleventh does not", sends(0, 10, now.Add(-30*time.Second)), false, now.Add(30 * time.Second)},
		{"20 first attempts buy two more", sends(20, 11, now.Add(-time.Second)), true, now},
		{"…and no more", sends(20, 12, now.Add(-time.Second)), false, now.Add(59 * time.Second)},
		{"sends older than the window do not count", sends(0, 50, now.Add(-61*time.Second)), true, now},
	}
	for _, c := range cases {
		ok, at := b.Next(c.sends, now)
		if ok != c.ok || !at.Equal(c.wantAt) {
			t.Errorf("%s: Next = %v, %s; want %v, %s", c.name, ok, at.Format(time.TimeOnly), c.ok, c.wantAt.Format(time.TimeOnly))
		}
	}
	// Oldest retries leave first: the budget frees as soon as one of them has.
	mixed := append(sends(0, 5, now.Add(-50*time.Second)), sends(0, 5, now.Add(-10*time.Second))...)
	if ok, at := b.Next(mixed, now); ok || !at.Equal(now.Add(10*time.Second)) {
		t.Errorf("mixed: %v %s", ok, at.Format(time.TimeOnly))
	}
}
