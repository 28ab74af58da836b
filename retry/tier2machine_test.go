package retry

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"parley/internal/chat"
)

// The Tier 2 machine on its own: every method is given the time, so these tests step it
// exactly.

// clockStart is the operator's 14:00 on the day the tests run in, so that the times of day
// they show are fixed.
var clockStart = time.Date(2026, 3, 1, 14, 0, 0, 0, time.Local)

// failedRun is a stored failed run of anchor 1 with classification c.
func failedRun(id int64, c chat.Classification) chat.RunResult {
	if c.Label == "" {
		c.Label = chat.Label(c.Class)
	}
	return chat.RunResult{RunID: id, AnchorID: 1, Status: chat.StatusFailed, Retry: &c, Attempts: 1}
}

var overloaded = chat.Classification{Retryable: true, Class: chat.Overloaded, Label: "Provider overloaded"}

// runDown ticks the machine from now until it fires, the way the screen does, and returns
// when that was and the banners it showed on the way.
func runDown(t *testing.T, m *Tier2, now time.Time) (time.Time, []string) {
	t.Helper()
	var banners []string
	for range 1000 {
		fire, next := m.Tick(m.Token(), now)
		if fire {
			return now, banners
		}
		banners = append(banners, m.Waiting(now))
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
	var m Tier2
	now := clockStart
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
		if !m.Sent(m.Token(), failed.RunID) {
			t.Fatal("the retry's run was refused")
		}
		m.Ended(failed.RunID, chat.StatusFailed)
		if m.state != Tier2Dispatching {
			t.Fatalf("a failed retry left the machine %v before its classification was read", m.state)
		}
		now = fired.Add(3 * time.Second)
	}
	for n := 1; n <= 20; n++ {
		if d := Tier2Delay(n); d > Tier2Cap || d < Tier2Base {
			t.Fatalf("delay %d = %v", n, d)
		}
	}
}

func TestTier2WaitCountsDownEachSecond(t *testing.T) {
	var m Tier2
	m.Arm(failedRun(1, overloaded), clockStart)
	_, banners := runDown(t, &m, clockStart)
	want := []string{
		"Provider overloaded — retrying in 2s (attempt 1)",
		"Provider overloaded — retrying in 1s (attempt 1)",
	}
	if !slices.Equal(banners, want) {
		t.Fatalf("banners %q, want %q", banners, want)
	}
	if m.state != Tier2Dispatching || m.Waiting(clockStart) != "" {
		t.Fatal("a fired retry is dispatching and shows no banner")
	}

	// A third attempt: the example line.
	m.Sent(m.Token(), 2)
	m.Ended(2, chat.StatusFailed)
	m.Arm(failedRun(2, overloaded), clockStart)
	m.RetryNow()
	m.Sent(m.Token(), 3)
	m.Ended(3, chat.StatusFailed)
	m.Arm(failedRun(3, overloaded), clockStart)
	if got := m.Waiting(clockStart); got != "Provider overloaded — retrying in 8s (attempt 3)" {
		t.Fatalf("banner %q", got)
	}
}

func TestTier2HonoursANearerRetryAfter(t *testing.T) {
	var m Tier2
	c := chat.Classification{Retryable: true, Class: chat.RateLimited, RetryAfterUntil: clockStart.Add(2500 * time.Millisecond)}
	m.Arm(failedRun(1, c), clockStart)
	if m.due != c.RetryAfterUntil || m.scheduled {
		t.Fatalf("due %v (scheduled %v), want the advice %v as a countdown", m.due, m.scheduled, c.RetryAfterUntil)
	}
	fired, banners := runDown(t, &m, clockStart)
	if !fired.Equal(c.RetryAfterUntil) {
		t.Fatalf("fired at %v, want %v, never earlier", fired, c.RetryAfterUntil)
	}
	if len(banners) != 3 || !strings.Contains(banners[0], "retrying in 3s") || !strings.Contains(banners[1], "retrying in 2s") ||
		!strings.Contains(banners[2], "retrying in 1s") {
		t.Fatalf("banners %q", banners)
	}

	// Advice nearer than the countdown does not shorten it.
	m = Tier2{}
	c.RetryAfterUntil = clockStart.Add(time.Second)
	m.Arm(failedRun(1, c), clockStart)
	if m.due != clockStart.Add(2*time.Second) {
		t.Fatalf("due %v, want the 2 s countdown", m.due)
	}

	// Up to the cap it is still counted in seconds.
	m = Tier2{}
	c.RetryAfterUntil = clockStart.Add(Tier2Cap)
	m.Arm(failedRun(1, c), clockStart)
	if m.scheduled || !strings.Contains(m.Waiting(clockStart), "retrying in 300s (attempt 1)") {
		t.Fatalf("banner %q", m.Waiting(clockStart))
	}
}

func TestTier2FarRetryAfterIsScheduled(t *testing.T) {
	var m Tier2
	c := chat.Classification{Retryable: true, Class: chat.RateLimited, Label: "Rate limited", RetryAfterUntil: clockStart.Add(50 * time.Minute)}
	if !m.Arm(failedRun(1, c), clockStart) {
		t.Fatal("advice 50 minutes away should arm")
	}
	if got := m.Waiting(clockStart); got != "Rate limited — retrying after 14:50" {
		t.Fatalf("banner %q", got)
	}
	if fire, _ := m.Tick(m.Token(), c.RetryAfterUntil.Add(-time.Nanosecond)); fire {
		t.Fatal("fired before the advised time")
	}
	if fire, _ := m.Tick(m.Token(), c.RetryAfterUntil); !fire {
		t.Fatal("did not fire at the advised time")
	}

	// Not today: the date is shown too.
	late := time.Date(2026, 3, 1, 23, 30, 0, 0, time.Local)
	m = Tier2{}
	c.RetryAfterUntil = time.Date(2026, 3, 2, 1, 10, 0, 0, time.Local)
	m.Arm(failedRun(1, c), late)
	if got := m.Waiting(late); got != "Rate limited — retrying after Mar 2 01:10" {
		t.Fatalf("banner %q", got)
	}
	// Just beyond the cap it is a time, not seconds.
	m = Tier2{}
	c.RetryAfterUntil = clockStart.Add(Tier2Cap + time.Second)
	m.Arm(failedRun(1, c), clockStart)
	if !m.scheduled || m.due != c.RetryAfterUntil {
		t.Fatalf("scheduled %v due %v", m.scheduled, m.due)
	}
}

func TestTier2StaleTicksAndResultsAreIgnored(t *testing.T) {
	var m Tier2
	m.Arm(failedRun(1, overloaded), clockStart)
	first := m.Token()
	m.Cancel()
	if fire, next := m.Tick(first, clockStart.Add(time.Hour)); fire || next != 0 {
		t.Fatal("a tick of a cancelled countdown was not ignored")
	}
	if m.state != Tier2Cancelled {
		t.Fatalf("state %v, want cancelled", m.state)
	}

	// Armed again: the old generation's tick still changes nothing.
	m.Arm(failedRun(2, overloaded), clockStart)
	if m.attempt != 1 {
		t.Fatalf("a new failure after a cancel starts at attempt 1, got %d", m.attempt)
	}
	if fire, next := m.Tick(first, clockStart.Add(time.Hour)); fire || next != 0 || m.state != Tier2Armed {
		t.Fatal("a stale tick fired or stopped the new countdown")
	}

	// A retry cancelled while its regeneration was being stored: the result is stale.
	if !m.RetryNow() {
		t.Fatal("retry now did nothing while armed")
	}
	sending := m.Token()
	if run := m.Cancel(); run != 0 {
		t.Fatalf("cancel returned run %d before any was stored", run)
	}
	if m.Sent(sending, 9) {
		t.Fatal("the run of a cancelled retry may be started")
	}

	// A retry running when cancelled: its run is handed back to be cancelled.
	m.Arm(failedRun(3, overloaded), clockStart)
	m.RetryNow()
	m.Sent(m.Token(), 10)
	if run := m.Cancel(); run != 10 {
		t.Fatalf("cancel returned run %d, want 10", run)
	}
	m.Ended(10, chat.StatusCancelled)
	if m.Active() {
		t.Fatal("active after cancel")
	}

	// Results for runs other than the one sent change nothing.
	m.Arm(failedRun(4, overloaded), clockStart)
	m.RetryNow()
	m.Sent(m.Token(), 11)
	m.Ended(12, chat.StatusSucceeded)
	if m.state != Tier2Dispatching {
		t.Fatalf("another run's end moved the machine to %v", m.state)
	}
	m.Ended(11, chat.StatusSucceeded)
	if m.state != Tier2Idle {
		t.Fatalf("a successful retry left the machine %v", m.state)
	}
}

func TestTier2ArmsOnlyFromARetryableFailure(t *testing.T) {
	var m Tier2
	refused := map[string]chat.RunResult{
		"cancelled run":        {RunID: 1, AnchorID: 1, Status: chat.StatusCancelled},
		"succeeded run":        {RunID: 1, AnchorID: 1, Status: chat.StatusSucceeded},
		"interrupted run":      {RunID: 1, AnchorID: 1, Status: chat.StatusInterrupted, Retry: &chat.Classification{Retryable: true, Class: chat.Interrupted}},
		"interrupted class":    failedRun(1, chat.Classification{Retryable: true, Class: chat.Interrupted}),
		"cancelled class":      failedRun(1, chat.Classification{Class: chat.Cancelled}),
		"no classification":    {RunID: 1, AnchorID: 1, Status: chat.StatusFailed},
		"x-should-retry false": failedRun(1, chat.Classification{Retryable: false, Class: chat.Overloaded}),
		"advice beyond 12 h": failedRun(1, chat.Classification{Retryable: true, Class: chat.RateLimited,
			RetryAfterUntil: clockStart.Add(Tier2Horizon + time.Second)}),
	}
	for _, c := range []chat.Class{chat.QuotaExhausted, chat.AuthFailed, chat.CredentialsUnresolved,
		chat.SpendLimitExceeded, chat.ContextOverflow, chat.ModelNotFound, chat.BadRequest,
		chat.ContentFilter, chat.EmptyResponse} {
		if c.Retryable() {
			t.Fatalf("%s is retryable", c)
		}
		refused[string(c)] = failedRun(1, chat.Classification{Retryable: c.Retryable(), Class: c})
	}
	for name, r := range refused {
		if m.Arm(r, clockStart) || m.state != Tier2Idle || m.Waiting(clockStart) != "" {
			t.Errorf("%s: armed", name)
		}
	}
	for _, c := range []chat.Class{chat.RateLimited, chat.Overloaded, chat.ServerError, chat.Network, chat.Timeout} {
		m = Tier2{}
		if !m.Arm(failedRun(1, chat.Classification{Retryable: true, Class: c}), clockStart) {
			t.Errorf("%s did not arm", c)
		}
	}
	// Advice exactly 12 hours away still arms, as a scheduled time.
	m = Tier2{}
	if !m.Arm(failedRun(1, chat.Classification{Retryable: true, Class: chat.RateLimited, RetryAfterUntil: clockStart.Add(Tier2Horizon)}), clockStart) || !m.scheduled {
		t.Error("advice 12 hours away should arm, scheduled")
	}

	// The classifier already calls a rate limit that resets in more than 12 hours a hard quota.
	h := http.Header{}
	h.Set("Retry-After", "46800") // 13 h
	c := Classify(Failure{Phase: Status, Status: 429, Header: h, Now: clockStart,
		Body: []byte(`{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`)})
	if c.Class != chat.QuotaExhausted || c.Retryable {
		t.Fatalf("13 h advice classified %+v, want quota_exhausted, not retryable", c)
	}
	m = Tier2{}
	if m.Arm(failedRun(1, c), clockStart) {
		t.Fatal("a 13 h rate limit armed")
	}
}

func TestTier2DisarmForgetsEverything(t *testing.T) {
	var m Tier2
	m.Arm(failedRun(1, overloaded), clockStart)
	token := m.Token()
	m.Disarm()
	if m.Active() || m.Waiting(clockStart) != "" {
		t.Fatal("still armed after disarm")
	}
	if fire, next := m.Tick(token, clockStart.Add(time.Hour)); fire || next != 0 {
		t.Fatal("a tick from before the disarm was not ignored")
	}
	m.Arm(failedRun(2, overloaded), clockStart)
	m.RetryNow()
	token = m.Token()
	m.Disarm()
	if m.Sent(token, 5) {
		t.Fatal("a disarmed retry's run may be started")
	}
}

// A run that endpoint memory held back sent nothing: its wait says when it will be sent,
// and that enter sends it now.
func TestTier2WaitOfARunHeldBack(t *testing.T) {
	var m Tier2
	held := failedRun(1, chat.Classification{Retryable: true, Class: chat.RateLimited, RetryAfterUntil: clockStart.Add(48 * time.Minute)})
	held.Attempts = 0
	if !m.Arm(held, clockStart) {
		t.Fatal("not armed")
	}
	if got, want := m.Waiting(clockStart), "Rate limited — sending after "+chat.FormatClock(clockStart.Add(48*time.Minute), clockStart); got != want {
		t.Errorf("banner %q, want %q", got, want)
	}
}

// Awaited is Waiting without its countdown, for a front end that says the wait once with its
// time: the label, the verb and the attempt, and nothing when no retry is armed.
func TestTier2Awaited(t *testing.T) {
	var m Tier2
	if got := m.Awaited(); got != "" {
		t.Fatalf("idle: %q", got)
	}
	if !m.Arm(failedRun(7, overloaded), clockStart) {
		t.Fatal("a retryable failure did not arm")
	}
	if got, want := m.Awaited(), "Provider overloaded — attempt 1, retrying"; got != want {
		t.Errorf("armed: %q, want %q", got, want)
	}
	far := overloaded
	far.Class, far.Label, far.RetryAfterUntil = chat.RateLimited, "Rate limited", clockStart.Add(20*time.Minute)
	m.Disarm()
	if !m.Arm(failedRun(8, far), clockStart) {
		t.Fatal("advice within the horizon did not arm")
	}
	if got, want := m.Awaited(), "Rate limited — retrying"; got != want || !m.Scheduled() {
		t.Errorf("scheduled: %q (scheduled %v), want %q", got, m.Scheduled(), want)
	}
	m.Cancel()
	if got := m.Awaited(); got != "" {
		t.Errorf("cancelled: %q", got)
	}
}
