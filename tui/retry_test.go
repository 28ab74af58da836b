package tui

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"parley/agent"
	"parley/agent/chat"
	"parley/agent/chat/chattest"
	"parley/agent/demo"
	"parley/history"
	"parley/retry"
)

// The Tier 2 machine on its own: every method is given the time, so these tests step it
// exactly.

// t2Start is a fixed local time for the machine's tests: banners show local times.
var t2Start = time.Date(2026, 3, 1, 14, 0, 0, 0, time.Local)

// failedRun is a stored failed run of anchor 1 with classification c.
func failedRun(id int64, c chat.Classification) history.Run {
	if c.Label == "" {
		c.Label = chat.Label(c.Class)
	}
	return history.Run{ID: id, AnchorID: 1, ReplyID: 100 + id, Status: chat.StatusFailed, Retry: &c}
}

var overloaded = chat.Classification{Retryable: true, Class: chat.Overloaded, Label: "Provider overloaded"}

// runDown ticks the machine from now until it fires, the way the screen does, and returns
// when that was and the banners it showed on the way.
func runDown(t *testing.T, m *tier2, now time.Time) (time.Time, []string) {
	t.Helper()
	var banners []string
	for range 1000 {
		fire, next := m.Tick(m.Token(), now)
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
		if !m.Sent(m.Token(), failed.ID) {
			t.Fatal("the retry's run was refused")
		}
		m.Ended(failed.ID, chat.StatusFailed)
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
	m.Sent(m.Token(), 2)
	m.Ended(2, chat.StatusFailed)
	m.Arm(failedRun(2, overloaded), t2Start)
	m.RetryNow()
	m.Sent(m.Token(), 3)
	m.Ended(3, chat.StatusFailed)
	m.Arm(failedRun(3, overloaded), t2Start)
	if got := m.Banner(t2Start); got != "Provider overloaded — retrying in 8s (attempt 3) · esc cancel · enter retry now" {
		t.Fatalf("banner %q", got)
	}
}

func TestTier2HonoursANearerRetryAfter(t *testing.T) {
	var m tier2
	c := chat.Classification{Retryable: true, Class: chat.RateLimited, RetryAfterUntil: t2Start.Add(2500 * time.Millisecond)}
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
	c := chat.Classification{Retryable: true, Class: chat.RateLimited, Label: "Rate limited", RetryAfterUntil: t2Start.Add(50 * time.Minute)}
	if !m.Arm(failedRun(1, c), t2Start) {
		t.Fatal("advice 50 minutes away should arm")
	}
	if got := m.Banner(t2Start); got != "Rate limited — retrying after 14:50 · esc cancel" {
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
	first := m.Token()
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
	sending := m.Token()
	if run := m.Cancel(); run != 0 {
		t.Fatalf("cancel returned run %d before any was stored", run)
	}
	if m.Sent(sending, 9) {
		t.Fatal("the run of a cancelled retry may be started")
	}

	// A retry running when cancelled: its run is handed back to be cancelled.
	m.Arm(failedRun(3, overloaded), t2Start)
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
	m.Arm(failedRun(4, overloaded), t2Start)
	m.RetryNow()
	m.Sent(m.Token(), 11)
	m.Ended(12, chat.StatusSucceeded)
	if m.state != tier2Dispatching {
		t.Fatalf("another run's end moved the machine to %v", m.state)
	}
	m.Ended(11, chat.StatusSucceeded)
	if m.state != tier2Idle {
		t.Fatalf("a successful retry left the machine %v", m.state)
	}
}

func TestTier2ArmsOnlyFromARetryableFailure(t *testing.T) {
	var m tier2
	refused := map[string]history.Run{
		"cancelled run":        {ID: 1, AnchorID: 1, Status: chat.StatusCancelled},
		"succeeded run":        {ID: 1, AnchorID: 1, Status: chat.StatusSucceeded},
		"interrupted run":      {ID: 1, AnchorID: 1, Status: chat.StatusInterrupted, Retry: &chat.Classification{Retryable: true, Class: chat.Interrupted}},
		"interrupted class":    failedRun(1, chat.Classification{Retryable: true, Class: chat.Interrupted}),
		"cancelled class":      failedRun(1, chat.Classification{Class: chat.Cancelled}),
		"no classification":    {ID: 1, AnchorID: 1, Status: chat.StatusFailed},
		"x-should-retry false": failedRun(1, chat.Classification{Retryable: false, Class: chat.Overloaded}),
		"advice beyond 12 h": failedRun(1, chat.Classification{Retryable: true, Class: chat.RateLimited,
			RetryAfterUntil: t2Start.Add(tier2Horizon + time.Second)}),
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
		if m.Arm(r, t2Start) || m.state != tier2Idle || m.Banner(t2Start) != "" {
			t.Errorf("%s: armed", name)
		}
	}
	for _, c := range []chat.Class{chat.RateLimited, chat.Overloaded, chat.ServerError, chat.Network, chat.Timeout} {
		m = tier2{}
		if !m.Arm(failedRun(1, chat.Classification{Retryable: true, Class: c}), t2Start) {
			t.Errorf("%s did not arm", c)
		}
	}
	// Advice exactly 12 hours away still arms, as a scheduled time.
	m = tier2{}
	if !m.Arm(failedRun(1, chat.Classification{Retryable: true, Class: chat.RateLimited, RetryAfterUntil: t2Start.Add(tier2Horizon)}), t2Start) || !m.scheduled {
		t.Error("advice 12 hours away should arm, scheduled")
	}

	// The classifier already calls a rate limit that resets in more than 12 hours a hard quota.
	h := http.Header{}
	h.Set("Retry-After", "46800") // 13 h
	c := retry.Classify(retry.Failure{Phase: retry.Status, Status: 429, Header: h, Now: t2Start,
		Body: []byte(`{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`)})
	if c.Class != chat.QuotaExhausted || c.Retryable {
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
	gen := m.Token()
	m.Disarm()
	if m.Active() || m.Banner(t2Start) != "" {
		t.Fatal("still armed after disarm")
	}
	if fire, next := m.Tick(gen, t2Start.Add(time.Hour)); fire || next != 0 {
		t.Fatal("a tick from before the disarm was not ignored")
	}
	m.Arm(failedRun(2, overloaded), t2Start)
	m.RetryNow()
	gen = m.Token()
	m.Disarm()
	if m.Sent(gen, 5) {
		t.Fatal("a disarmed retry's run may be started")
	}
}

// The Tier 2 machine in the screen, against a demo endpoint and a real database, on a clock
// that moves only when the test says. Tier 1 is held to one attempt, so each failed run is
// one request.

// tier2Screen returns a driven screen on a new session whose client and Tier 2 run on a
// manual clock.
func tier2Screen(t *testing.T, faults ...demo.Fault) (*driver, *demo.Server, *chattest.Clock, *history.DB) {
	t.Helper()
	db := openDB(t)
	srv, err := demo.Start(demo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	srv.Push(faults...)
	clock := chattest.New(t2Start)
	ep := agent.Endpoint{Name: "demo", BaseURL: srv.URL(), Model: "parley-demo"}
	client := agent.NewClient(ep, clock, retry.Policy{MaxAttempts: 1, Base: time.Second, Cap: 30 * time.Second})
	s, err := db.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{DB: db, Client: client, Session: s, Clock: clock})
	m, _ = step(m, tea.WindowSizeMsg{Width: 120, Height: 30})
	m, _ = step(m, m.loadSession(s.ID)())
	return newDriver(t, m), srv, clock, db
}

// settle processes messages until cond holds, checking it also while no message comes.
func settle(d *driver, what string, cond func(Model) bool) {
	d.t.Helper()
	deadline := time.After(10 * time.Second)
	for !cond(d.m) {
		select {
		case msg := <-d.msgs:
			d.send(msg)
		case <-time.After(2 * time.Millisecond):
		case <-deadline:
			d.t.Fatalf("timed out waiting for %s; screen:\n%s", what, plain(d.m))
		}
	}
}

// pump processes whatever messages come for a while.
func pump(d *driver, dur time.Duration) {
	end := time.After(dur)
	for {
		select {
		case msg := <-d.msgs:
			d.send(msg)
		case <-end:
			return
		}
	}
}

// advance waits until the countdown waits for its next tick, then moves the clock to it.
func advance(d *driver, clock *chattest.Clock, tick time.Duration) {
	d.t.Helper()
	settle(d, fmt.Sprintf("a %v tick", tick), func(Model) bool { return clock.Waiting(tick) })
	clock.Advance(tick)
}

func armed(m Model) bool { return m.tier2.Armed() }

func TestTier2RetriesUntilAReplyArrives(t *testing.T) {
	d, srv, clock, db := tier2Screen(t, demo.Overloaded(), demo.Overloaded())
	d.typeAndSend("hello")
	settle(d, "the retry to arm", armed)
	first := lastReply(t, d.m).message
	if r, err := db.Run(first.RunID); err != nil || r.Status != chat.StatusFailed || r.Retry == nil || r.Retry.Class != chat.Overloaded {
		t.Fatalf("stored run %+v, %v", r, err)
	}
	want := "Provider overloaded — retrying in 2s (attempt 1) · esc cancel · enter retry now"
	if !strings.Contains(plain(d.m), want) {
		t.Fatalf("no banner %q:\n%s", want, plain(d.m))
	}
	advance(d, clock, time.Second)
	settle(d, "the countdown to tick", func(m Model) bool { return strings.Contains(plain(m), "retrying in 1s (attempt 1)") })
	if srv.Requests() != 1 {
		t.Fatalf("%d requests before the countdown ended", srv.Requests())
	}
	advance(d, clock, time.Second)
	settle(d, "the second retry to arm", func(m Model) bool { return armed(m) && m.tier2.attempt == 2 })
	if !strings.Contains(plain(d.m), "Provider overloaded — retrying in 4s (attempt 2)") || srv.Requests() != 2 {
		t.Fatalf("%d requests; screen:\n%s", srv.Requests(), plain(d.m))
	}
	for range 4 {
		advance(d, clock, time.Second)
	}
	settle(d, "the reply", func(m Model) bool {
		return m.active == nil && !m.tier2.Active() && lastReply(t, m).message.Status == chat.StatusSucceeded
	})
	if srv.Requests() != 3 {
		t.Fatalf("%d requests, want 3", srv.Requests())
	}
	for i, r := range srv.Received() {
		if len(r.Messages) != 1 || r.Messages[0] != (demo.Message{Role: "user", Content: "hello"}) {
			t.Fatalf("request %d sent %+v", i+1, r.Messages)
		}
	}
	if s := plain(d.m); strings.Contains(s, "retrying") || strings.Contains(s, "overloaded") {
		t.Fatalf("the banner or the failure is still shown:\n%s", s)
	}
	all, err := db.AllMessages(d.m.session.ID)
	if err != nil {
		t.Fatal(err)
	}
	var users, superseded, live int
	for _, msg := range all {
		switch {
		case msg.Role == history.RoleUser:
			users++
		case msg.Superseded:
			superseded++
			if msg.Status != chat.StatusFailed {
				t.Fatalf("superseded reply %+v", msg)
			}
		default:
			live++
			if msg.Status != chat.StatusSucceeded {
				t.Fatalf("live reply %+v", msg)
			}
		}
	}
	if users != 1 || superseded != 2 || live != 1 || d.m.transcript.Len() != 2 {
		t.Fatalf("%d operator rows, %d superseded and %d live replies, %d on screen", users, superseded, live, d.m.transcript.Len())
	}
}

func TestTier2EscWhileArmedSendsNothing(t *testing.T) {
	d, srv, clock, _ := tier2Screen(t, demo.Overloaded())
	d.typeAndSend("hello")
	settle(d, "the retry to arm", armed)
	d.send(press("esc"))
	if d.m.tier2.state != tier2Cancelled || d.m.focus != focusInput {
		t.Fatalf("esc left Tier 2 %v, focus %v", d.m.tier2.state, d.m.focus)
	}
	if s := plain(d.m); strings.Contains(s, "retrying") || !strings.Contains(s, "retry cancelled") {
		t.Fatalf("screen after esc:\n%s", s)
	}
	clock.Advance(time.Hour) // the pending tick fires, stale
	pump(d, 100*time.Millisecond)
	if srv.Requests() != 1 || d.m.active != nil || d.m.tier2.Active() {
		t.Fatalf("%d requests after esc, run %v", srv.Requests(), d.m.active)
	}
}

func TestTier2EscWhileDispatchingCancelsTheRun(t *testing.T) {
	d, srv, clock, db := tier2Screen(t, demo.Overloaded(), demo.Fault{Stall: true})
	d.typeAndSend("hello")
	settle(d, "the retry to arm", armed)
	advance(d, clock, time.Second)
	advance(d, clock, time.Second)
	settle(d, "the retry's request", func(m Model) bool { return m.active != nil && srv.Requests() == 2 })
	if d.m.tier2.state != tier2Dispatching {
		t.Fatalf("Tier 2 %v while its run is out", d.m.tier2.state)
	}
	sent := d.m.active.rcpt
	d.send(press("esc"))
	settle(d, "the run to end", func(m Model) bool { return m.active == nil })
	if r, err := db.Run(sent.RunID); err != nil || r.Status != chat.StatusCancelled || r.Retry != nil {
		t.Fatalf("the retry's run is stored %+v, %v; want cancelled", r, err)
	}
	if d.m.tier2.Active() || lastReply(t, d.m).message.Status != chat.StatusCancelled {
		t.Fatalf("Tier 2 %v; screen:\n%s", d.m.tier2.state, plain(d.m))
	}
	clock.Advance(time.Hour)
	pump(d, 100*time.Millisecond)
	if srv.Requests() != 2 || d.m.tier2.Active() {
		t.Fatalf("%d requests after esc, want 2", srv.Requests())
	}
}

func TestTier2EscBeforeTheRetryIsStoredSendsNothing(t *testing.T) {
	d, srv, clock, db := tier2Screen(t, demo.Overloaded())
	d.typeAndSend("hello")
	settle(d, "the retry to arm", armed)
	// From here the test steps the screen itself, so it can press esc between the retry's
	// dispatch and the answer from the database.
	m := d.m
	clock.Advance(2 * time.Second)
	m, regen := step(m, tier2TickMsg{token: m.tier2.Token()})
	if m.tier2.state != tier2Dispatching || regen == nil {
		t.Fatalf("the due tick did not dispatch: %v", m.tier2.state)
	}
	m, _ = step(m, press("esc"))
	msgs := execCmd(regen, 5*time.Second)
	if len(msgs) != 1 {
		t.Fatalf("regenerating gave %v", msgs)
	}
	rm := msgs[0].(regeneratedMsg)
	m, cmd := step(m, rm)
	for _, msg := range execCmd(cmd, 5*time.Second) {
		m, _ = step(m, msg)
	}
	if m.active != nil || len(m.queue) != 0 {
		t.Fatal("a retry cancelled before it was stored was started")
	}
	if r, err := db.Run(rm.rcpt.RunID); err != nil || r.Status != chat.StatusCancelled {
		t.Fatalf("its run is stored %+v, %v; want cancelled", r, err)
	}
	time.Sleep(50 * time.Millisecond)
	if srv.Requests() != 1 {
		t.Fatalf("%d requests, want 1", srv.Requests())
	}
	if lastReply(t, m).message.Status != chat.StatusCancelled {
		t.Fatalf("screen:\n%s", plain(m))
	}
}

func TestTier2EnterRetriesNow(t *testing.T) {
	d, srv, clock, _ := tier2Screen(t, demo.Overloaded())
	d.typeAndSend("hello")
	settle(d, "the retry to arm", armed)
	if !d.m.keys.Chat.RetryNow.Enabled() || !strings.Contains(plain(d.m), "enter retry now") {
		t.Fatalf("enter is not offered as retry now:\n%s", plain(d.m))
	}
	d.send(press("enter"))
	settle(d, "the reply", func(m Model) bool {
		return m.active == nil && !m.tier2.Active() && lastReply(t, m).message.Status == chat.StatusSucceeded
	})
	if srv.Requests() != 2 || !clock.Now().Equal(t2Start) {
		t.Fatalf("%d requests, clock moved to %v", srv.Requests(), clock.Now())
	}
}

func TestTier2NewMessageDisarms(t *testing.T) {
	d, srv, clock, db := tier2Screen(t, demo.Overloaded())
	d.typeAndSend("first")
	settle(d, "the retry to arm", armed)
	failed := lastReply(t, d.m).message
	d.typeAndSend("second") // with text in the input, enter sends it
	if d.m.tier2.Active() {
		t.Fatal("a new message did not disarm")
	}
	settle(d, "the second reply", func(m Model) bool {
		return m.active == nil && m.transcript.Len() == 4 && lastReply(t, m).message.Status == chat.StatusSucceeded
	})
	clock.Advance(time.Hour)
	pump(d, 100*time.Millisecond)
	if srv.Requests() != 2 || d.m.tier2.Active() {
		t.Fatalf("%d requests, want 2", srv.Requests())
	}
	if got := storedReply(t, db, d.m.session.ID, failed.ID); got.Status != chat.StatusFailed {
		t.Fatalf("the failed reply became %+v", got)
	}
}

func TestTier2NeverArmsForNonRetryableOrCancelledRuns(t *testing.T) {
	cases := map[string]struct {
		fault demo.Fault
		esc   bool
	}{
		"401":        {fault: demo.BadKey()},
		"quota":      {fault: demo.Quota()},
		"overflow":   {fault: demo.ContextOverflow()},
		"13h advice": {fault: demo.RateLimited(13 * time.Hour)},
		"cancelled":  {fault: demo.Fault{Stall: true}, esc: true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			d, srv, clock, _ := tier2Screen(t, c.fault)
			d.typeAndSend("hello")
			if c.esc {
				settle(d, "the request", func(m Model) bool { return srv.Requests() == 1 })
				d.send(press("esc"))
			}
			settle(d, "the run to end", func(m Model) bool { return m.active == nil })
			pump(d, 50*time.Millisecond) // the stored run is read back
			clock.Advance(14 * time.Hour)
			pump(d, 50*time.Millisecond)
			if d.m.tier2.Active() || strings.Contains(plain(d.m), "retrying") || srv.Requests() != 1 {
				t.Fatalf("Tier 2 %v, %d requests; screen:\n%s", d.m.tier2.state, srv.Requests(), plain(d.m))
			}
		})
	}
}

func TestTier2TooFarAdviceIsShownWithItsTime(t *testing.T) {
	d, _, _, _ := tier2Screen(t, demo.RateLimited(13*time.Hour))
	d.typeAndSend("hello")
	settle(d, "the notice", func(m Model) bool { return strings.Contains(m.notice, "not before") })
	want := "Quota exhausted — the provider says not before " + clockTime(t2Start.Add(13*time.Hour), t2Start)
	if !strings.Contains(plain(d.m), want) {
		t.Fatalf("screen lacks %q:\n%s", want, plain(d.m))
	}
}

func TestTier2ArmsFromTheStoredClassification(t *testing.T) {
	// The event says overloaded; the database says quota. The database wins.
	db := openDB(t)
	s, err := db.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{DB: db, Client: offlineClient(), Session: s, Clock: chattest.New(t2Start)})
	m, _ = step(m, tea.WindowSizeMsg{Width: 100, Height: 24})
	m, _ = step(m, m.loadSession(s.ID)())
	arm := func(stored, event chat.Classification) Model {
		rcpt, err := db.Post(s.ID, "hello", "test-model", false)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := step(m, postedMsg{sessionGen: m.sessionGen, text: "hello", modelName: "test-model", rcpt: rcpt, session: s})
		if err := db.FinishRun(rcpt.RunID, history.Finish{Status: chat.StatusFailed, Retry: &stored}); err != nil {
			t.Fatal(err)
		}
		m, cmd := deliver(m, chat.Event{Kind: chat.EventFailed, Class: event})
		for _, msg := range execCmd(cmd, 5*time.Second) {
			m, _ = step(m, msg)
		}
		return m
	}
	quota := chat.Classification{Class: chat.QuotaExhausted, Label: "Quota exhausted"}
	if m := arm(quota, overloaded); m.tier2.Active() {
		t.Fatal("armed from the event's classification, not the stored one")
	}
	if m := arm(overloaded, quota); !m.tier2.Armed() {
		t.Fatal("did not arm from the stored classification")
	}
}

func TestTier2NeverArmsAtStartUp(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/history.db"
	db1, err := history.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	failed, _ := db1.CreateSession()
	r, _ := db1.Post(failed.ID, "hello", "m", false)
	if err := db1.FinishRun(r.RunID, history.Finish{Status: chat.StatusFailed, Retry: &overloaded}); err != nil {
		t.Fatal(err)
	}
	cut, _ := db1.CreateSession()
	r, _ = db1.Post(cut.ID, "tell me", "m", false)
	if err := db1.StartRun(r.RunID); err != nil {
		t.Fatal(err)
	}
	if err := db1.AppendReply(r.RunID, "Once upon"); err != nil {
		t.Fatal(err)
	}
	db1.Close() // the run's owner is gone: the next open finds it interrupted
	db, err := history.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })

	for _, s := range []history.Session{failed, cut} {
		m := New(Options{DB: db, Client: offlineClient(), Session: s, Clock: chattest.New(t2Start)})
		m, _ = step(m, tea.WindowSizeMsg{Width: 100, Height: 24})
		m, cmd := step(m, m.loadSession(s.ID)())
		if m.tier2.Active() || cmd != nil || strings.Contains(plain(m), "retrying") {
			t.Fatalf("session %s armed at start-up:\n%s", s.ID, plain(m))
		}
		if s == cut && !strings.Contains(plain(m), "interrupted — r to regenerate") {
			t.Fatalf("the interrupted reply is not offered for r:\n%s", plain(m))
		}
	}
}

// TestTier2BannerGolden pins both banner forms at 80×24.
func TestTier2BannerGolden(t *testing.T) {
	forms := map[string]func(m *Model){
		"countdown": func(m *Model) {
			// Third attempt, as in the issue: 8 s.
			for i := int64(1); i <= 3; i++ {
				m.tier2.Arm(failedRun(i, overloaded), t2Start)
				if i < 3 {
					m.tier2.RetryNow()
					m.tier2.Sent(m.tier2.Token(), i+1)
					m.tier2.Ended(i+1, chat.StatusFailed)
				}
			}
		},
		"scheduled": func(m *Model) {
			c := chat.Classification{Retryable: true, Class: chat.RateLimited, Label: "Rate limited",
				RetryAfterUntil: t2Start.Add(50 * time.Minute)}
			m.tier2.Arm(failedRun(1, c), t2Start)
		},
	}
	for name, arm := range forms {
		t.Run(name, func(t *testing.T) {
			m := loaded(t, goldenSession(chat.StatusFailed, "", &overloaded), 80, 24)
			arm(&m)
			m.now = t2Start
			m, _ = step(m, tea.WindowSizeMsg{Width: 80, Height: 24})
			golden.RequireEqual(t, asciiView(m))
		})
	}
}
