package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/agent"
	"parley/internal/chat"
	"parley/internal/demo"
	"parley/internal/mcp"
	"parley/internal/toolloop"
)

// exchange sends text and waits until its run has ended and the session's spend is read.
func exchange(d *driver, text string) {
	d.t.Helper()
	before := d.m.transcript.Len()
	d.send(tea.PasteMsg{Content: text}) // typing long text key by key is slow
	d.send(press("enter"))
	d.until("the run of "+text, func(m Model) bool { return settled(m) && m.transcript.Len() == before+2 })
	d.pump(30 * time.Millisecond) // the stored run and the spend are read back
}

// Against a server that rejects long prompts, a long session compacts once: the screen says
// what was left out, shows no retry, and the reply arrives.
func TestOverflowShowsTheNoteAndNoRetry(t *testing.T) {
	t.Parallel()
	for _, form := range demo.Overflows {
		t.Run(string(form), func(t *testing.T) {
			d, srv, clock, _ := demoScreen(t, screenConfig{manual: true, limits: &agent.Limits{}})
			for i := range 5 {
				exchange(d, fmt.Sprintf("question %d: %s", i, strings.Repeat("lorem ipsum dolor sit amet ", 20)))
			}
			srv.SetContext(500, form)
			before := srv.Requests()
			exchange(d, "and in short?")
			screen := plain(d.m)
			if srv.Requests()-before != 2 || lastReply(t, d.m).message.Status != chat.StatusSucceeded {
				t.Fatalf("%d requests; screen:\n%s", srv.Requests()-before, screen)
			}
			if !strings.Contains(screen, "earlier messages left out to fit the model's context") {
				t.Fatalf("no note on the screen:\n%s", screen)
			}
			clock.Advance(time.Minute)
			d.pump(30 * time.Millisecond)
			if d.m.tier2.Active() || strings.Contains(plain(d.m), "retrying") || strings.Contains(screen, "reconnecting") {
				t.Fatalf("a retry showed; screen:\n%s", plain(d.m))
			}
		})
	}
}

func TestOversizeMessageFailsAsOverflowAndNothingRetries(t *testing.T) {
	t.Parallel()
	d, srv, clock, _ := demoScreen(t, screenConfig{manual: true, limits: &agent.Limits{}})
	srv.SetContext(100, demo.OverflowLlamaCpp)
	exchange(d, strings.Repeat("far too long ", 100))
	clock.Advance(10 * time.Minute)
	d.pump(30 * time.Millisecond)
	reply := lastReply(t, d.m)
	if reply.message.Status != chat.StatusFailed || reply.message.Retry == nil || reply.message.Retry.Class != chat.ContextOverflow {
		t.Fatalf("reply %+v", reply.message)
	}
	if d.m.tier2.Active() || srv.Requests() != 1 || !strings.Contains(plain(d.m), "Context too long") {
		t.Fatalf("Tier 2 %v after %d requests; screen:\n%s", d.m.tier2.State(), srv.Requests(), plain(d.m))
	}
}

// The header shows what the session spent; a limit crossed by the reply's usage stops the
// next request, which fails in the transcript without being sent, and Tier 2 stays idle.
func TestSpendInTheHeaderAndTheLimitBeforeSending(t *testing.T) {
	t.Parallel()
	d, srv, clock, db := demoScreen(t, screenConfig{manual: true, limits: &agent.Limits{SessionCost: 0.05}})
	if strings.Contains(plain(d.m), "tok") {
		t.Fatalf("a new session shows spend:\n%s", plain(d.m))
	}
	exchange(d, "tell me about retries")
	usage, err := db.SessionUsage(d.m.session.ID)
	if err != nil {
		t.Fatal(err)
	}
	spent := testPrices.SpentOf(usage)
	if spent.Cost <= 0.05 {
		t.Fatalf("spent %+v; the test needs more than the $0.05 limit", spent)
	}
	d.until("the header to show "+spentLabel(spent), func(m Model) bool {
		return strings.Contains(strings.SplitN(plain(m), "\n", 2)[0], spentLabel(spent))
	})
	exchange(d, "and again")
	clock.Advance(10 * time.Minute)
	d.pump(30 * time.Millisecond)
	reply := lastReply(t, d.m)
	if srv.Requests() != 1 || reply.message.Status != chat.StatusFailed || reply.message.Retry == nil || reply.message.Retry.Class != chat.SpendLimitExceeded {
		t.Fatalf("%d requests, reply %+v", srv.Requests(), reply.message)
	}
	if d.m.tier2.Active() || !strings.Contains(plain(d.m), "Spend limit reached") {
		t.Fatalf("Tier 2 %v; screen:\n%s", d.m.tier2.State(), plain(d.m))
	}
}

// A provider that says little is left of its limits has the header say so; a later answer
// with room takes it away.
func TestTheHeaderShowsLimitsRunningLow(t *testing.T) {
	t.Parallel()
	o, srv, _ := demoOptions(t, screenConfig{})
	o.Client = o.Client.WithStore(historyOf(o.DB))
	m, _ := openModel(t, o, 120, 30)
	d := newDriver(t, m)
	srv.Push(demo.Fault{Header: map[string]string{"x-ratelimit-limit-requests": "500", "x-ratelimit-remaining-requests": "12",
		"x-ratelimit-reset-requests": "3m0s", "x-ratelimit-limit-tokens": "200000", "x-ratelimit-remaining-tokens": "18000",
		"x-ratelimit-reset-tokens": "40s"}})
	d.typeAndSend("hello")
	d.until("the header to say what is left", func(m Model) bool {
		return settled(m) && strings.Contains(strings.SplitN(plain(m), "\n", 2)[0], "12 req · 18k tok left · resets ")
	})
	srv.Push(demo.Fault{Header: map[string]string{"x-ratelimit-limit-requests": "500", "x-ratelimit-remaining-requests": "499",
		"x-ratelimit-reset-requests": "1s", "x-ratelimit-limit-tokens": "200000", "x-ratelimit-remaining-tokens": "199000",
		"x-ratelimit-reset-tokens": "1s"}})
	d.typeAndSend("again")
	d.until("the header to let it go", func(m Model) bool {
		return settled(m) && m.transcript.Len() >= 4 && !strings.Contains(strings.SplitN(plain(m), "\n", 2)[0], " left")
	})
}

// A request the spend limit refuses is not sent, with tools on as with none: the tool loop's
// model calls go through the spend guard as a lone call does.
func TestTheSpendLimitHoldsWithToolsOn(t *testing.T) {
	t.Parallel()
	for _, tools := range []bool{false, true} {
		t.Run(fmt.Sprintf("tools %v", tools), func(t *testing.T) {
			t.Parallel()
			o, srv, _ := demoOptions(t, screenConfig{manual: true, limits: &agent.Limits{SessionTokens: 20}})
			if tools {
				// A server that cannot start leaves its tools on: the run is the tool loop's.
				host := mcp.New([]mcp.Server{{Name: "ghost", Command: []string{"parley-no-such-server"}}}, nil)
				t.Cleanup(func() { host.Close() })
				o.Tools = toolloop.NewToolbox(host, []string{"ghost"}, nil)
			}
			m, _ := openModel(t, o, 120, 30)
			d := newDriver(t, m)
			exchange(d, strings.Repeat("a question too long for the limit ", 10))
			reply := lastReply(t, d.m)
			if srv.Requests() != 0 || reply.message.Status != chat.StatusFailed || reply.message.Retry == nil ||
				reply.message.Retry.Class != chat.SpendLimitExceeded {
				t.Fatalf("%d requests, reply %+v", srv.Requests(), reply.message)
			}
			if tools && !strings.Contains(plain(d.m), `mcp server "ghost"`) {
				t.Fatalf("the run did not go through the tool loop:\n%s", plain(d.m))
			}
		})
	}
}
