package tui

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/history"
	"parley/retry"
)

// The Tier 2 machine on its own: every method is given the time, so these tests step it
// exactly.

// t2Start is a fixed local time for the machine's tests: banners show local times.
var t2Start = time.Date(2026, 3, 1, 14, 0, 0, 0, time.Local)

// failedRun is a stored failed run of anchor 1 with classification c.
func failedRun(id int64, c retry.Classification) history.Run {
	if c.Label == "" {
		c.Label = retry.Label(c.Class)
	}
	return history.Run{ID: id, AnchorID: 1, ReplyID: 100 + id, Status: history.StatusFailed, Retry: &c}
}

var overloaded = retry.Classification{Retryable: true, Class: retry.Overloaded, Label: "Provider overloaded"}

// runDown ticks the machine from now until it fires, the way the screen does, and returns
// when that was and the banners it showed on the way.
func runDown(t *testing.T, m *tier2, now time.Time) (time.Time, []string) {
	t.Helper()
	var banners []string
	for range 1000 {
		fire, next := m.Tick(m.gen, now)
		if fire {
			return now, banners
		}
		banners = append(banners, m.Banner(now))
		if next <= 0 || next > time.Second {
			t.Fatalf("tick at %v asked for the next in %v", now, next)
		}
		now = now.Add(next)
	}
	t.Fatal("the countdown never fired")
	return now, nil
}

func TestTier2DelaysDoubleToTheCap(t *testing.T) {
	want := []int{2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300, 300}
	var m tier2
	now := t2Start
	failed := failedRun(1, overloaded) // the operator's own run
	for i, secs := range want {
		if !m.Arm(failed, now) {
			t.Fatalf("retry %d did not arm", i+1)
		}
		if m.attempt != i+1 {
			t.Fatalf("attempt %d, want %d", m.attempt, i+1)
		}
		fired, _ := runDown(t, &m, now)
		if got := fired.Sub(now); got != time.Duration(secs)*time.Second {
			t.Fatalf("retry %d fired after %v, want %ds", i+1, got, secs)
		}
		// The retry's run is stored, sent, and fails again a few seconds later.
		failed = failedRun(int64(i+2), overloaded)
		if !m.Sent(m.gen, failed.ID) {
			t.Fatal("the retry's run was refused")
		}
		m.Ended(failed.ID, history.StatusFailed)
		if m.state != tier2Dispatching {
			t.Fatalf("a failed retry left the machine %v before its classification was read", m.state)
		}
		now = fired.Add(3 * time.Second)
	}
	for n := 1; n <= 20; n++ {
		if d := tier2Delay(n); d > tier2Cap || d < tier2Base {
			t.Fatalf("delay %d = %v", n, d)
		}
	}
}

func TestTier2BannerCountsDownEachSecond(t *testing.T) {
	var m tier2
	m.Arm(failedRun(1, overloaded), t2Start)
	_, banners := runDown(t, &m, t2Start)
	want := []string{
		"Provider overloaded — retrying in 2s (attempt 1) · esc cancel · enter retry now",
		"Provider overloaded — retrying in 1s (attempt 1) · esc cancel · enter retry now",
	}
	if !slices.Equal(banners, want) {
		t.Fatalf("banners %q, want %q", banners, want)
	}
	if m.state != tier2Dispatching || m.Banner(t2Start) != "" {
		t.Fatal("a fired retry is dispatching and shows no banner")
	}

	// A third attempt: the example line.
	m.Sent(m.gen, 2)
	m.Ended(2, history.StatusFailed)
	m.Arm(failedRun(2, overloaded), t2Start)
	m.RetryNow()
	m.Sent(m.gen, 3)
	m.Ended(3, history.StatusFailed)
	m.Arm(failedRun(3, overloaded), t2Start)
	if got := m.Banner(t2Start); got != "Provider overloaded — retrying in 8s (attempt 3) · esc cancel · enter retry now" {
		t.Fatalf("banner %q", got)
	}
}

func TestTier2HonoursANearerRetryAfter(t *testing.T) {
	var m tier2
	c := retry.Classification{Retryable: true, Class: retry.RateLimited, RetryAfterUntil: t2Start.Add(2500 * time.Millisecond)}
	m.Arm(failedRun(1, c), t2Start)
	if m.due != c.RetryAfterUntil || m.scheduled {
		t.Fatalf("due %v (scheduled %v), want the advice %v as a countdown", m.due, m.scheduled, c.RetryAfterUntil)
	}
	fired, banners := runDown(t, &m, t2Start)
	if !fired.Equal(c.RetryAfterUntil) {
		t.Fatalf("fired at %v, want %v, never earlier", fired, c.RetryAfterUntil)
	}
	if len(banners) != 3 || !strings.Contains(banners[0], "retrying in 3s") || !strings.Contains(banners[1], "retrying in 2s") ||
		!strings.Contains(banners[2], "retrying in 1s") {
		t.Fatalf("banners %q", banners)
	}

	// Advice nearer than the countdown does not shorten it.
	m = tier2{}
	c.RetryAfterUntil = t2Start.Add(time.Second)
	m.Arm(failedRun(1, c), t2Start)
	if m.due != t2Start.Add(2*time.Second) {
		t.Fatalf("due %v, want the 2 s countdown", m.due)
	}

	// Up to the cap it is still counted in seconds.
	m = tier2{}
	c.RetryAfterUntil = t2Start.Add(tier2Cap)
	m.Arm(failedRun(1, c), t2Start)
	if m.scheduled || !strings.Contains(m.Banner(t2Start), "retrying in 300s (attempt 1)") {
		t.Fatalf("banner %q", m.Banner(t2Start))
	}
}

func TestTier2FarRetryAfterIsScheduled(t *testing.T) {
	var m tier2
	c := retry.Classification{Retryable: true, Class: retry.RateLimited, Label: "Rate limited", RetryAfterUntil: t2Start.Add(50 * time.Minute)}
	if !m.Arm(failedRun(1, c), t2Start) {
		t.Fatal("advice 50 minutes away should arm")
	}
	if got := m.Banner(t2Start); got != "Rate limited — retrying after 14:50 · esc cancel" {
		t.Fatalf("banner %q", got)
	}
	if fire, _ := m.Tick(m.gen, c.RetryAfterUntil.Add(-time.Nanosecond)); fire {
		t.Fatal("fired before the advised time")
	}
	if fire, _ := m.Tick(m.gen, c.RetryAfterUntil); !fire {
		t.Fatal("did not fire at the advised time")
	}

	// Not today: the date is shown too.
	late := time.Date(2026, 3, 1, 23, 30, 0, 0, time.Local)
	m = tier2{}
	c.RetryAfterUntil = time.Date(2026, 3, 2, 1, 10, 0, 0, time.Local)
	m.Arm(failedRun(1, c), late)
	if got := m.Banner(late); got != "Rate limited — retrying after Mar 2 01:10 · esc cancel" {
		t.Fatalf("banner %q", got)
	}
	// Just beyond the cap it is a time, not seconds.
	m = tier2{}
	c.RetryAfterUntil = t2Start.Add(tier2Cap + time.Second)
	m.Arm(failedRun(1, c), t2Start)
	if !m.scheduled || m.due != c.RetryAfterUntil {
		t.Fatalf("scheduled %v due %v", m.scheduled, m.due)
	}
}

func TestTier2StaleTicksAndResultsAreIgnored(t *testing.T) {
	var m tier2
	m.Arm(failedRun(1, overloaded), t2Start)
	first := m.gen
	m.Cancel()
	if fire, next := m.Tick(first, t2Start.Add(time.Hour)); fire || next != 0 {
		t.Fatal("a tick of a cancelled countdown was not ignored")
	}
	if m.state != tier2Cancelled {
		t.Fatalf("state %v, want cancelled", m.state)
	}

	// Armed again: the old generation's tick still changes nothing.
	m.Arm(failedRun(2, overloaded), t2Start)
	if m.attempt != 1 {
		t.Fatalf("a new failure after a cancel starts at attempt 1, got %d", m.attempt)
	}
	if fire, next := m.Tick(first, t2Start.Add(time.Hour)); fire || next != 0 || m.state != tier2Armed {
		t.Fatal("a stale tick fired or stopped the new countdown")
	}

	// A retry cancelled while its regeneration was being stored: the result is stale.
	if !m.RetryNow() {
		t.Fatal("retry now did nothing while armed")
	}
	sending := m.gen
	if run := m.Cancel(); run != 0 {
		t.Fatalf("cancel returned run %d before any was stored", run)
	}
	if m.Sent(sending, 9) {
		t.Fatal("the run of a cancelled retry may be started")
	}

	// A retry running when cancelled: its run is handed back to be cancelled.
	m.Arm(failedRun(3, overloaded), t2Start)
	m.RetryNow()
	m.Sent(m.gen, 10)
	if run := m.Cancel(); run != 10 {
		t.Fatalf("cancel returned run %d, want 10", run)
	}
	m.Ended(10, history.StatusCancelled)
	if m.Active() {
		t.Fatal("active after cancel")
	}

	// Results for runs other than the one sent change nothing.
	m.Arm(failedRun(4, overloaded), t2Start)
	m.RetryNow()
	m.Sent(m.gen, 11)
	m.Ended(12, history.StatusSucceeded)
	if m.state != tier2Dispatching {
		t.Fatalf("another run's end moved the machine to %v", m.state)
	}
	m.Ended(11, history.StatusSucceeded)
	if m.state != tier2Idle {
		t.Fatalf("a successful retry left the machine %v", m.state)
	}
}

func TestTier2ArmsOnlyFromARetryableFailure(t *testing.T) {
	var m tier2
	refused := map[string]history.Run{
		"cancelled run":        {ID: 1, AnchorID: 1, Status: history.StatusCancelled},
		"succeeded run":        {ID: 1, AnchorID: 1, Status: history.StatusSucceeded},
		"interrupted run":      {ID: 1, AnchorID: 1, Status: history.StatusInterrupted, Retry: &retry.Classification{Retryable: true, Class: retry.Interrupted}},
		"interrupted class":    failedRun(1, retry.Classification{Retryable: true, Class: retry.Interrupted}),
		"cancelled class":      failedRun(1, retry.Classification{Class: retry.Cancelled}),
		"no classification":    {ID: 1, AnchorID: 1, Status: history.StatusFailed},
		"x-should-retry false": failedRun(1, retry.Classification{Retryable: false, Class: retry.Overloaded}),
		"advice beyond 12 h": failedRun(1, retry.Classification{Retryable: true, Class: retry.RateLimited,
			RetryAfterUntil: t2Start.Add(tier2Horizon + time.Second)}),
	}
	for _, c := range []retry.Class{retry.QuotaExhausted, retry.AuthFailed, retry.CredentialsUnresolved,
		retry.SpendLimitExceeded, retry.ContextOverflow, retry.ModelNotFound, retry.BadRequest,
		retry.ContentFilter, retry.EmptyResponse} {
		if c.Retryable() {
			t.Fatalf("%s is retryable", c)
		}
		refused[string(c)] = failedRun(1, retry.Classification{Retryable: c.Retryable(), Class: c})
	}
	for name, r := range refused {
		if m.Arm(r, t2Start) || m.state != tier2Idle || m.Banner(t2Start) != "" {
			t.Errorf("%s: armed", name)
		}
	}
	for _, c := range []retry.Class{retry.RateLimited, retry.Overloaded, retry.ServerError, retry.Network, retry.Timeout} {
		m = tier2{}
		if !m.Arm(failedRun(1, retry.Classification{Retryable: true, Class: c}), t2Start) {
			t.Errorf("%s did not arm", c)
		}
	}
	// Advice exactly 12 hours away still arms, as a scheduled time.
	m = tier2{}
	if !m.Arm(failedRun(1, retry.Classification{Retryable: true, Class: retry.RateLimited, RetryAfterUntil: t2Start.Add(tier2Horizon)}), t2Start) || !m.scheduled {
		t.Error("advice 12 hours away should arm, scheduled")
	}

	// The classifier already calls a rate limit that resets in more than 12 hours a hard quota.
	h := http.Header{}
	h.Set("Retry-After", "46800") // 13 h
	c := retry.Classify(retry.Failure{Phase: retry.Status, Status: 429, Header: h, Now: t2Start,
		Body: []byte(`{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`)})
	if c.Class != retry.QuotaExhausted || c.Retryable {
		t.Fatalf("13 h advice classified %+v, want quota_exhausted, not retryable", c)
	}
	m = tier2{}
	if m.Arm(failedRun(1, c), t2Start) {
		t.Fatal("a 13 h rate limit armed")
	}
}

func TestTier2DisarmForgetsEverything(t *testing.T) {
	var m tier2
	m.Arm(failedRun(1, overloaded), t2Start)
	gen := m.gen
	m.Disarm()
	if m.Active() || m.Banner(t2Start) != "" {
		t.Fatal("still armed after disarm")
	}
	if fire, next := m.Tick(gen, t2Start.Add(time.Hour)); fire || next != 0 {
		t.Fatal("a tick from before the disarm was not ignored")
	}
	m.Arm(failedRun(2, overloaded), t2Start)
	m.RetryNow()
	gen = m.gen
	m.Disarm()
	if m.Sent(gen, 5) {
		t.Fatal("a disarmed retry's run may be started")
	}
}

// manualClock is a retry.Clock that moves only when the test advances it, firing the waits
// that fall due.
type manualClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []manualWait
}

type manualWait struct {
	at time.Time
	d  time.Duration
	ch chan time.Time
}

func newManualClock(now time.Time) *manualClock { return &manualClock{now: now} }

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.waits = append(c.waits, manualWait{at: c.now.Add(d), d: d, ch: ch})
	return ch
}

// Advance moves the clock on by d and fires every wait that is due.
func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.waits[:0]
	for _, w := range c.waits {
		if w.at.After(c.now) {
			kept = append(kept, w)
			continue
		}
		w.ch <- c.now
	}
	c.waits = kept
}

// waiting reports whether something waits for exactly d.
func (c *manualClock) waiting(d time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, w := range c.waits {
		if w.d == d {
			return true
		}
	}
	return false
}
