package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/agent"
	"parley/history"
	"parley/history/historytest"
	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/demo"
	"parley/retry"
	"parley/retry/retrytest"
	"parley/tui/transcript/transcripttest"
)

// The Tier 2 machine in the screen, against a demo endpoint and a real database, on a clock
// that moves only when the test says. Tier 1 is held to one attempt, so each failed run is
// one request.

func TestTier2RetriesUntilAReplyArrives(t *testing.T) {
	t.Parallel()
	d, srv, clock, db := demoScreen(t, tier2Config(demo.Overloaded(), demo.Overloaded()))
	d.sendUntilArmed("hello")
	first := lastReply(t, d.m).message
	if r, err := db.Run(first.RunID); err != nil || r.Status != chat.StatusFailed || r.Retry == nil || r.Retry.Class != chat.Overloaded {
		t.Fatalf("stored run %+v, %v", r, err)
	}
	want := "Provider overloaded — retrying in 2s (attempt 1) · esc cancel · enter retry now"
	if !strings.Contains(plain(d.m), want) {
		t.Fatalf("no banner %q:\n%s", want, plain(d.m))
	}
	d.advance(clock, time.Second)
	d.until("the countdown to tick", func(m Model) bool { return strings.Contains(plain(m), "retrying in 1s (attempt 1)") })
	if srv.Requests() != 1 {
		t.Fatalf("%d requests before the countdown ended", srv.Requests())
	}
	d.advance(clock, time.Second)
	d.until("the second retry to arm", func(m Model) bool { return armed(m) && m.tier2.Attempt() == 2 })
	if !strings.Contains(plain(d.m), "Provider overloaded — retrying in 4s (attempt 2)") || srv.Requests() != 2 {
		t.Fatalf("%d requests; screen:\n%s", srv.Requests(), plain(d.m))
	}
	for range 4 {
		d.advance(clock, time.Second)
	}
	d.until("the reply", func(m Model) bool {
		return m.active == nil && !m.tier2.Active() && lastReply(t, m).message.Status == chat.StatusSucceeded
	})
	if srv.Requests() != 3 {
		t.Fatalf("%d requests, want 3", srv.Requests())
	}
	for i, r := range srv.Received() {
		if len(r.Messages) != 1 || r.Messages[0].Role != "user" || r.Messages[0].Content != "hello" {
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
		case msg.Role == chat.RoleUser:
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

// After esc cancels a countdown, the next esc (once the select guard has passed) selects
// replies at once: it is not spent dismissing the cancel's notice.
func TestEscAfterACancelledCountdownSelects(t *testing.T) {
	t.Parallel()
	d, _, clock, _ := demoScreen(t, tier2Config(demo.Overloaded()))
	d.sendUntilArmed("hello")
	d.send(press("esc"))
	clock.Advance(selectGuard)
	d.send(press("esc"))
	if d.m.focus != focusTranscript {
		t.Fatalf("the first esc after the cancel did not select replies; screen:\n%s", plain(d.m))
	}
}

func TestTier2EscWhileArmedSendsNothing(t *testing.T) {
	t.Parallel()
	d, srv, clock, _ := demoScreen(t, tier2Config(demo.Overloaded()))
	d.sendUntilArmed("hello")
	d.send(press("esc"))
	if d.m.tier2.State() != retry.Tier2Cancelled || d.m.focus != focusInput {
		t.Fatalf("esc left Tier 2 %v, focus %v", d.m.tier2.State(), d.m.focus)
	}
	if s := plain(d.m); strings.Contains(s, "retrying") || !strings.Contains(s, "retry cancelled") {
		t.Fatalf("screen after esc:\n%s", s)
	}
	clock.Advance(time.Hour) // the pending tick fires, stale
	d.sendsNextOnly(srv, 1, "and now?")
}

func TestTier2EscWhileDispatchingCancelsTheRun(t *testing.T) {
	t.Parallel()
	d, srv, clock, db := demoScreen(t, tier2Config(demo.Overloaded(), demo.Fault{Stall: true}))
	d.sendUntilArmed("hello")
	d.advance(clock, time.Second)
	d.advance(clock, time.Second)
	d.until("the retry's request", func(m Model) bool { return m.active != nil && srv.Requests() == 2 })
	if d.m.tier2.State() != retry.Tier2Dispatching {
		t.Fatalf("Tier 2 %v while its run is out", d.m.tier2.State())
	}
	sent := d.m.active.rcpt
	d.send(press("esc"))
	d.until("the run to end", func(m Model) bool { return m.active == nil })
	if r, err := db.Run(sent.RunID); err != nil || r.Status != chat.StatusCancelled || r.Retry != nil {
		t.Fatalf("the retry's run is stored %+v, %v; want cancelled", r, err)
	}
	// The retry had no output: the reply it retried stays, and says the retry was cancelled.
	if last := lastReply(t, d.m); d.m.tier2.Active() || last.message.Status != chat.StatusFailed ||
		!strings.Contains(plain(d.m), "retry 1: cancelled") {
		t.Fatalf("Tier 2 %v; screen:\n%s", d.m.tier2.State(), plain(d.m))
	}
	clock.Advance(time.Hour)
	d.sendsNextOnly(srv, 2, "and now?")
}

func TestTier2EscBeforeTheRetryIsStoredSendsNothing(t *testing.T) {
	t.Parallel()
	d, srv, clock, db := demoScreen(t, tier2Config(demo.Overloaded()))
	d.sendUntilArmed("hello")
	// From here the test steps the screen itself, so it can press esc between the retry's
	// dispatch and the answer from the database.
	m := d.m
	clock.Advance(2 * time.Second)
	m, regen := step(m, tier2TickMsg{token: m.tier2.Token()})
	if m.tier2.State() != retry.Tier2Dispatching || regen == nil {
		t.Fatalf("the due tick did not dispatch: %v", m.tier2.State())
	}
	m, _ = step(m, press("esc"))
	msgs := execCmd(regen, 5*time.Second)
	if len(msgs) != 1 {
		t.Fatalf("regenerating gave %v", msgs)
	}
	rm := msgs[0].(regeneratedMsg)
	m = runCmds(step(m, rm))
	if m.active != nil || len(m.queue) != 0 {
		t.Fatal("a retry cancelled before it was stored was started")
	}
	if r, err := db.Run(rm.rcpt.RunID); err != nil || r.Status != chat.StatusCancelled {
		t.Fatalf("its run is stored %+v, %v; want cancelled", r, err)
	}
	if last := lastReply(t, m); last.message.Status != chat.StatusFailed || last.message.ID == rm.rcpt.ReplyID {
		t.Fatalf("the failed reply should stay, the unsent retry never show; screen:\n%s", plain(m))
	}
	d.m = m
	d.sendsNextOnly(srv, 1, "and now?")
}

func TestTier2EnterRetriesNow(t *testing.T) {
	t.Parallel()
	d, srv, clock, _ := demoScreen(t, tier2Config(demo.Overloaded()))
	d.sendUntilArmed("hello")
	if !d.m.keys.Chat.RetryNow.Enabled() || !strings.Contains(plain(d.m), "enter retry now") {
		t.Fatalf("enter is not offered as retry now:\n%s", plain(d.m))
	}
	d.send(press("enter"))
	d.until("the reply", func(m Model) bool {
		return m.active == nil && !m.tier2.Active() && lastReply(t, m).message.Status == chat.StatusSucceeded
	})
	if srv.Requests() != 2 || !clock.Now().Equal(clockStart) {
		t.Fatalf("%d requests, clock moved to %v", srv.Requests(), clock.Now())
	}
}

func TestTier2NewMessageDisarms(t *testing.T) {
	t.Parallel()
	d, srv, clock, db := demoScreen(t, tier2Config(demo.Overloaded()))
	d.sendUntilArmed("first")
	failed := lastReply(t, d.m).message
	d.typeAndSend("second") // with text in the input, enter sends it
	if d.m.tier2.Active() {
		t.Fatal("a new message did not disarm")
	}
	d.until("the second reply", func(m Model) bool {
		return m.active == nil && m.transcript.Len() == 4 && lastReply(t, m).message.Status == chat.StatusSucceeded
	})
	clock.Advance(time.Hour)
	d.sendsNextOnly(srv, 2, "and now?")
	if got := storedReply(t, db, d.m.session.ID, failed.ID); got.Status != chat.StatusFailed {
		t.Fatalf("the failed reply became %+v", got)
	}
}

func TestTier2NeverArmsForNonRetryableOrCancelledRuns(t *testing.T) {
	t.Parallel()
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
			d, srv, clock, _ := demoScreen(t, tier2Config(c.fault))
			d.typeAndSend("hello")
			if c.esc {
				d.until("the request", func(m Model) bool { return srv.Requests() == 1 })
				d.send(press("esc"))
			}
			d.until("the run to end", settled) // not merely before the send has begun
			d.pump(50 * time.Millisecond)      // the stored run is read back
			clock.Advance(14 * time.Hour)
			d.pump(50 * time.Millisecond)
			if d.m.tier2.Active() || strings.Contains(plain(d.m), "retrying") || srv.Requests() != 1 {
				t.Fatalf("Tier 2 %v, %d requests; screen:\n%s", d.m.tier2.State(), srv.Requests(), plain(d.m))
			}
		})
	}
}

func TestTier2TooFarAdviceIsShownWithItsTime(t *testing.T) {
	t.Parallel()
	d, _, _, _ := demoScreen(t, tier2Config(demo.RateLimited(13*time.Hour)))
	d.typeAndSend("hello")
	d.until("the notice", func(m Model) bool { return strings.Contains(m.notice, "not before") })
	want := "Quota exhausted — the provider says not before " + chat.FormatClock(clockStart.Add(13*time.Hour), clockStart)
	if !strings.Contains(plain(d.m), want) {
		t.Fatalf("screen lacks %q:\n%s", want, plain(d.m))
	}
}

func TestTier2ArmsFromTheStoredClassification(t *testing.T) {
	t.Parallel()
	// The event says overloaded; the database says quota. The database wins.
	db := historytest.Open(t)
	s := newSessionIn(t, db)
	m, _ := openOffline(t, db, s, 100, 24)
	arm := func(kept, event chat.Classification) Model {
		rcpt, err := db.Post(s.ID, "hello", "test-model", false)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := step(m, postedMsg{sessionGen: m.sessionGen, out: outgoing{text: "hello"}, modelName: "test-model", rcpt: rcpt, session: s})
		if err := db.FinishRun(rcpt.RunID, stored.Finish{Status: chat.StatusFailed, Retry: &kept}); err != nil {
			t.Fatal(err)
		}
		return runCmds(deliver(m, chat.Event{Kind: chat.EventFailed, Class: event}))
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
	t.Parallel()
	dir := t.TempDir()
	path := dir + "/history.db"
	db1, err := history.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	failed, _ := db1.CreateSession()
	r, _ := db1.Post(failed.ID, "hello", "m", false)
	if err := db1.FinishRun(r.RunID, stored.Finish{Status: chat.StatusFailed, Retry: &overloaded}); err != nil {
		t.Fatal(err)
	}
	cut, _ := db1.CreateSession()
	r, _ = db1.Post(cut.ID, "tell me", "m", false)
	if err := db1.StartRun(r.RunID); err != nil {
		t.Fatal(err)
	}
	if err := db1.AppendReply(r.RunID, "Once upon", ""); err != nil {
		t.Fatal(err)
	}
	db1.Close() // the run's owner is gone: the next open finds it interrupted
	db, err := history.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })

	for _, s := range []stored.Session{failed, cut} {
		m, cmd := openOffline(t, db, s, 100, 24)
		if m.tier2.Active() || strings.Contains(plain(m), "retrying") {
			t.Fatalf("session %s armed at start-up:\n%s", s.ID, plain(m))
		}
		// Opening reads the replies' version marks, what the session spent, the endpoint's
		// limits and the conversation's size, and nothing else is under way.
		for _, msg := range execCmd(cmd, time.Second) {
			switch msg.(type) {
			case marksMsg, spentMsg, budgetMsg:
			default:
				t.Fatalf("session %s: opening it started %T", s.ID, msg)
			}
		}
		if s == cut && !strings.Contains(plain(m), "interrupted — enter sends it again, esc dismisses") {
			t.Fatalf("the interrupted reply is not offered:\n%s", plain(m))
		}
	}
}

// The screen waits, rounds and offers the fallback as retry's table says, the table print
// mode's --wait is held to as well.
func TestTier2CasesOnScreen(t *testing.T) {
	t.Parallel()
	for _, c := range retrytest.Tier2Cases {
		t.Run(c.Name, func(t *testing.T) {
			spare := agent.NewClient(agent.Endpoint{Name: "spare", BaseURL: "http://127.0.0.1:9/v1", Model: "spare-model"},
				chat.SystemClock{}, retry.DefaultPolicy())
			m := New(Options{Client: offlineClient(), Fallback: spare, Session: stored.Session{ID: "s1", Title: "test session"}})
			m, _ = step(m, tea.WindowSizeMsg{Width: 200, Height: 24})
			m, _ = step(m, sessionLoadedMsg{session: m.session, msgs: transcripttest.GoldenSession(chat.StatusFailed, "", &c.Class)})
			if !m.tier2.Arm(failedRun(1, c.Class), retrytest.Tier2Failed) {
				t.Fatal("not armed")
			}
			if got := m.tier2.Due().Sub(retrytest.Tier2Failed); got != c.Due {
				t.Errorf("due after %v, want %v", got, c.Due)
			}
			m.now = retrytest.Tier2Failed.Add(c.Elapsed)
			if s := plain(m); !strings.Contains(s, c.Shown+" · esc cancel") {
				t.Errorf("the banner does not say %q:\n%s", c.Shown, s)
			}
			if got := strings.Contains(plain(m), "send to spare-model now"); got != c.Fallback {
				t.Errorf("fallback offered %v, want %v:\n%s", got, c.Fallback, plain(m))
			}
		})
	}
}

// A Tier 2 retry is one request, whatever Tier 1's policy: against a steady overload, the
// requests sent after the first run are the attempts the banner counted, not three times them.
func TestTier2AttemptsAreRequests(t *testing.T) {
	t.Parallel()
	var faults []demo.Fault
	for range 20 {
		faults = append(faults, demo.Overloaded())
	}
	d, srv, clock, _ := demoScreen(t, screenConfig{faults: faults, manual: true, attempts: 3})
	d.typeAndSend("hello")
	// Time moves until the machine is armed for attempt n: Tier 1's waits, then the countdown.
	armedFor := func(n int) {
		for range 1000 {
			if armed(d.m) && d.m.tier2.Attempt() == n {
				return
			}
			d.pump(time.Millisecond)
			clock.Advance(100 * time.Millisecond)
		}
		t.Fatalf("never armed for attempt %d:\n%s", n, plain(d.m))
	}
	armedFor(1)
	first := srv.Requests() // the operator's own run: Tier 1's three attempts
	if first != 3 {
		t.Fatalf("the first run made %d requests, want Tier 1's 3", first)
	}
	for attempt := 2; attempt <= 4; attempt++ {
		armedFor(attempt)
		if sent := srv.Requests() - first; sent != attempt-1 {
			t.Fatalf("banner at attempt %d after %d Tier 2 requests; want %d", attempt, sent, attempt-1)
		}
	}
}
