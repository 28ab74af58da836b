package tui

import (
	"fmt"
	"os"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/agent"
	"parley/history"
	"parley/history/historytest"
	"parley/internal/chat"
	"parley/internal/chat/chattest"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
	"parley/retry"
)

// A driven screen: a model run like a Bubble Tea program, without a terminal, against a demo
// endpoint and a real database.

func TestMain(m *testing.M) {
	// Driven screens spend most of their time waiting on demo endpoints, MCP servers and
	// pumped messages (a demo reply at 50 tokens a second), not on the CPU: eight at a time
	// keep two cores busy.
	chattest.WaitingParallel(8)
	os.Exit(m.Run())
}

// clockStart is when the tests' manual clocks start: a fixed local time, as banners show
// local times.
var clockStart = time.Date(2026, 3, 1, 14, 0, 0, 0, time.Local)

// testPrices prices the demo's model at $1 per thousand tokens.
var testPrices = agent.Prices{demo.DefaultModel: {Input: 1000, Output: 1000}}

// Demo endpoints slow enough for a test to act while a reply streams.
var (
	// cancellable streams a long reply at 50 tokens a second: time to cancel it partway.
	cancellable = demo.Options{Pace: 20 * time.Millisecond}
	// queueable streams 60 tokens at 100 a second: time to queue messages behind it.
	queueable = demo.Options{Pace: 10 * time.Millisecond, Tokens: 60}
)

// screenConfig is how demoScreen sets a screen up.
type screenConfig struct {
	demo     demo.Options  // the endpoint's pace and reply length
	faults   []demo.Fault  // what the endpoint serves first
	manual   bool          // the client, Tier 2 and the quota run on a manual clock from clockStart
	attempts int           // Tier 1's attempts a run; 0: the default policy's
	limits   *agent.Limits // a quota at testPrices held to these limits; nil: none
	allowed  []string      // tools config.toml lets run without asking, as SERVER.TOOL
	unstored bool          // the screen opens on no session: its first message stores one
}

// tier2Config sets a screen up for Tier 2: a manual clock, one request a run (so each failed
// run is one request), and faults.
func tier2Config(faults ...demo.Fault) screenConfig {
	return screenConfig{faults: faults, manual: true, attempts: 1}
}

// demoScreen returns a driven 120×30 screen on a new session (none, if c says so) against a
// new demo endpoint, and the manual clock when c asks for one.
func demoScreen(t *testing.T, c screenConfig) (*driver, *demo.Server, *chattest.Clock, *history.DB) {
	t.Helper()
	o, srv, clock := demoOptions(t, c)
	m, _ := openModel(t, o, 120, 30)
	return newDriver(t, m), srv, clock, historyOf(o.DB)
}

// streamingScreen returns a driven demo screen whose reply to text is streaming, at
// cancellable's pace: time to act on it partway.
func streamingScreen(t *testing.T, text string) (*driver, *demo.Server, *history.DB) {
	t.Helper()
	d, srv, _, db := demoScreen(t, screenConfig{demo: cancellable})
	d.sendUntilStreaming(text)
	return d, srv, db
}

// demoOptions returns the options of a screen on a new session of a new database, against a
// new demo endpoint, set up as c says; and the manual clock when c asks for one.
func demoOptions(t *testing.T, c screenConfig) (Options, *demo.Server, *chattest.Clock) {
	t.Helper()
	db := historytest.Open(t)
	srv := demotest.Start(t, c.demo, c.faults...)
	var clock chat.Clock = chat.SystemClock{}
	var manual *chattest.Clock
	if c.manual {
		manual = chattest.New(clockStart)
		clock = manual
	}
	o := Options{DB: db, Client: demoClient(srv, clock, c.attempts), Demo: srv, Clock: clock}
	if !c.unstored {
		o.Session = newSessionIn(t, db)
	}
	if c.limits != nil {
		o.Spend = &agent.SpendGuard{Prices: testPrices, Limits: *c.limits, Ledger: db, Clock: clock}
	}
	return o, srv, manual
}

// demoClient returns a client for the demo endpoint srv on clock, which sends a run at most
// attempts times (0: as the default policy does).
func demoClient(srv *demo.Server, clock chat.Clock, attempts int) *agent.Client {
	policy := retry.DefaultPolicy()
	if attempts > 0 {
		policy.MaxAttempts = attempts
	}
	ep := agent.Endpoint{Name: "demo", BaseURL: srv.URL(), Model: demo.DefaultModel, Demo: true}
	return agent.NewClient(ep, clock, policy)
}

// driver runs a model like a Bubble Tea program without a terminal: commands run in
// goroutines and their messages come back through Update, one at a time.
type driver struct {
	t    testing.TB
	m    Model
	msgs chan tea.Msg
	done chan struct{}
	quit bool
	// after, when set, sees the model after each message it handles, as Reader's gate does.
	after func(m Model, msg tea.Msg)
}

func newDriver(t testing.TB, m Model) *driver {
	d := &driver{t: t, m: m, msgs: make(chan tea.Msg, 64), done: make(chan struct{})}
	t.Cleanup(func() {
		d.settle()
		close(d.done)
	})
	return d
}

// settle stops a run the test left going and takes in what follows until it is stored, so
// that nothing writes into the test's database, or its directory, after the test: cleanups run
// before the database closes and its directory is removed.
func (d *driver) settle() {
	if d.m.active != nil {
		d.m.active.cancel()
	}
	deadline := time.After(10 * time.Second)
	for d.m.active != nil || d.m.posting {
		select {
		case msg := <-d.msgs:
			d.send(msg)
		case <-deadline:
			return
		}
	}
}

// send delivers msg to the model and starts the commands it returns.
func (d *driver) send(msg tea.Msg) {
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			d.exec(c)
		}
	case tea.QuitMsg:
		d.quit = true
	default:
		var cmd tea.Cmd
		d.m, cmd = step(d.m, msg)
		if d.after != nil {
			d.after(d.m, msg)
		}
		d.exec(cmd)
	}
}

func (d *driver) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		if msg := cmd(); msg != nil {
			select {
			case d.msgs <- msg:
			case <-d.done:
			}
		}
	}()
}

// input types text into the input, key by key.
func (d *driver) input(text string) {
	for _, r := range text {
		d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// typeAndSend types text and presses enter.
func (d *driver) typeAndSend(text string) {
	for _, r := range text {
		d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	d.send(press("enter"))
}

// attach types /file path and waits for the file's chip above the input, the only one.
func (d *driver) attach(path string) {
	d.t.Helper()
	d.typeAndSend("/file " + path)
	d.until("the chip", func(m Model) bool { return len(m.next.files) == 1 })
}

// selectReplies presses esc once the screen takes it to select replies: selectGuard after the
// last run ended.
func (d *driver) selectReplies() {
	d.t.Helper()
	d.until("esc to select replies", func(m Model) bool { return m.selectable(m.clock.Now(), m.tier2.Active()) })
	d.send(press("esc"))
	if d.m.focus != focusTranscript {
		d.t.Fatalf("esc did not select replies; screen:\n%s", plain(d.m))
	}
}

// sendUntilStreaming types text, presses enter and waits until the reply to it streams.
func (d *driver) sendUntilStreaming(text string) {
	d.t.Helper()
	d.typeAndSend(text)
	d.until("the reply to "+text+" to stream", func(m Model) bool { return m.active != nil && m.active.gotOutput })
}

// sendUntilArmed types text, presses enter and waits until the reply to it has failed and
// Tier 2 has armed its retry.
func (d *driver) sendUntilArmed(text string) {
	d.t.Helper()
	d.typeAndSend(text)
	d.until("the retry to arm", armed)
}

func armed(m Model) bool { return m.tier2.Armed() }

// queueBehind sends first, waits until its reply streams, then sends each of queued and
// waits until they all queue behind it.
func (d *driver) queueBehind(first string, queued ...string) {
	d.t.Helper()
	d.sendUntilStreaming(first)
	for _, text := range queued {
		d.typeAndSend(text)
	}
	d.until(fmt.Sprint(len(queued), " queued"), func(m Model) bool { return len(m.queue) == len(queued) })
}

// until processes messages until cond holds, checking it also while no message comes (it may
// wait on the endpoint or the clock), and fails after 30 s: as long as e2e waits for a pane,
// for a loaded machine renders a streamed reply slowly under the race detector.
func (d *driver) until(what string, cond func(m Model) bool) {
	d.t.Helper()
	deadline := time.After(30 * time.Second)
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

// pressUntil presses key until cond holds, taking in what comes meanwhile, and fails after
// a hundred presses: a list that never reaches what the test looks for fails it, with the
// screen, rather than spinning until the test binary's timeout.
func (d *driver) pressUntil(key, what string, cond func(m Model) bool) {
	d.t.Helper()
	for range 100 {
		if cond(d.m) {
			return
		}
		d.send(press(key))
		// What waits now, and no more: a stream goes on sending while the keys are pressed.
		for n := len(d.msgs); n > 0; n-- {
			d.send(<-d.msgs)
		}
	}
	if !cond(d.m) {
		d.t.Fatalf("%s never reached %s; screen:\n%s", key, what, plain(d.m))
	}
}

// pump processes whatever messages come for a while.
func (d *driver) pump(dur time.Duration) {
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

// sendsNextOnly proves that nothing went to srv while the test stood by: it sends text, waits
// for the reply to it and for the screen to settle, and checks that the endpoint had got
// before requests until then, text's next, and none after it.
func (d *driver) sendsNextOnly(srv *demo.Server, before int, text string) {
	d.t.Helper()
	n := d.m.transcript.Len() + 2
	d.typeAndSend(text)
	d.until("the reply to "+text, func(m Model) bool { return answered(d.t, n)(m) && !m.tier2.Active() })
	got := srv.Received()
	if len(got) != before+1 {
		d.t.Fatalf("%d requests, want %d and then the one of %q", len(got), before, text)
	}
	if msgs := got[before].Messages; len(msgs) == 0 || msgs[len(msgs)-1].Content != text {
		d.t.Fatalf("request %d was not the one of %q: %+v", before+1, text, msgs)
	}
}

// advance waits until the screen waits on clock for tick, then moves the clock on by it.
func (d *driver) advance(clock *chattest.Clock, tick time.Duration) {
	d.t.Helper()
	d.until(fmt.Sprintf("a %v tick", tick), func(Model) bool { return clock.Waiting(tick) })
	clock.Advance(tick)
}

// settled reports whether nothing runs, waits or is being stored.
func settled(m Model) bool { return m.active == nil && len(m.queue) == 0 && !m.posting }

// answered returns a condition: the screen has settled and shows n messages, the last a reply
// that succeeded.
func answered(t testing.TB, n int) func(Model) bool {
	return func(m Model) bool {
		return settled(m) && m.transcript.Len() == n && lastReply(t, m).message.Status == chat.StatusSucceeded
	}
}
