package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/agent"
	"parley/agent/chat"
	"parley/agent/chat/chattest"
	"parley/agent/demo"
	"parley/history"
	"parley/retry"
)

// budgetScreen returns a driven screen on a new session, against a demo endpoint, held to
// limits with a price of $1 per thousand tokens for the model.
func budgetScreen(t *testing.T, limits agent.Limits) (*driver, *demo.Server, *chattest.Clock, *history.DB) {
	t.Helper()
	db := openDB(t)
	srv, err := demo.Start(demo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	clock := chattest.New(t2Start)
	client := agent.NewClient(agent.Endpoint{Name: "test", BaseURL: srv.URL(), Model: "priced"}, clock, retry.DefaultPolicy())
	budget := &agent.Budget{Prices: agent.Prices{"priced": {Input: 1000, Output: 1000}}, Limits: limits, Ledger: db, Clock: clock}
	s, err := db.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{DB: db, Client: client, Session: s, Clock: clock, Budget: budget})
	m, _ = step(m, tea.WindowSizeMsg{Width: 120, Height: 30})
	m, _ = step(m, m.loadSession(s.ID)())
	return newDriver(t, m), srv, clock, db
}

// exchange sends text and waits until its run has ended and the session's spend is read.
func exchange(d *driver, text string) {
	d.t.Helper()
	before := len(d.m.transcript.entries)
	d.send(tea.PasteMsg{Content: text}) // typing long text key by key is slow
	d.send(press("enter"))
	settle(d, "the run of "+text, func(m Model) bool {
		return m.active == nil && len(m.queue) == 0 && !m.posting && len(m.transcript.entries) == before+2
	})
	pump(d, 30*time.Millisecond) // the stored run and the spend are read back
}

// Against a server that rejects long prompts, a long session compacts once: the screen says
// what was left out, shows no retry, and the reply arrives.
func TestOverflowShowsTheNoteAndNoRetry(t *testing.T) {
	for _, form := range demo.Overflows {
		t.Run(string(form), func(t *testing.T) {
			d, srv, clock, _ := budgetScreen(t, agent.Limits{})
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
			pump(d, 30*time.Millisecond)
			if d.m.tier2.Active() || strings.Contains(plain(d.m), "retrying") || strings.Contains(screen, "reconnecting") {
				t.Fatalf("a retry showed; screen:\n%s", plain(d.m))
			}
		})
	}
}

func TestOversizeMessageFailsAsOverflowAndNothingRetries(t *testing.T) {
	d, srv, clock, _ := budgetScreen(t, agent.Limits{})
	srv.SetContext(100, demo.OverflowLlamaCpp)
	exchange(d, strings.Repeat("far too long ", 100))
	clock.Advance(10 * time.Minute)
	pump(d, 30*time.Millisecond)
	reply := lastReply(t, d.m)
	if reply.message.Status != chat.StatusFailed || reply.message.Retry == nil || reply.message.Retry.Class != chat.ContextOverflow {
		t.Fatalf("reply %+v", reply.message)
	}
	if d.m.tier2.Active() || srv.Requests() != 1 || !strings.Contains(plain(d.m), "Context too long") {
		t.Fatalf("Tier 2 %v after %d requests; screen:\n%s", d.m.tier2.state, srv.Requests(), plain(d.m))
	}
}

// The header shows what the session spent; a limit crossed by the reply's usage stops the
// next request, which fails in the transcript without being sent, and Tier 2 stays idle.
func TestSpendInTheHeaderAndTheLimitBeforeSending(t *testing.T) {
	d, srv, clock, db := budgetScreen(t, agent.Limits{SessionCost: 0.05})
	if strings.Contains(plain(d.m), "tok") {
		t.Fatalf("a new session shows spend:\n%s", plain(d.m))
	}
	exchange(d, "tell me about retries")
	usage, err := db.SessionUsage(d.m.session.ID)
	if err != nil {
		t.Fatal(err)
	}
	spent := agent.Prices{"priced": {Input: 1000, Output: 1000}}.SpentOf(usage)
	if spent.Cost <= 0.05 {
		t.Fatalf("spent %+v; the test needs more than the $0.05 limit", spent)
	}
	settle(d, "the header to show "+spent.String(), func(m Model) bool {
		return strings.Contains(strings.SplitN(plain(m), "\n", 2)[0], spent.String())
	})
	exchange(d, "and again")
	clock.Advance(10 * time.Minute)
	pump(d, 30*time.Millisecond)
	reply := lastReply(t, d.m)
	if srv.Requests() != 1 || reply.message.Status != chat.StatusFailed || reply.message.Retry == nil || reply.message.Retry.Class != chat.SpendLimitExceeded {
		t.Fatalf("%d requests, reply %+v", srv.Requests(), reply.message)
	}
	if d.m.tier2.Active() || !strings.Contains(plain(d.m), "Spend limit reached") {
		t.Fatalf("Tier 2 %v; screen:\n%s", d.m.tier2.state, plain(d.m))
	}
}

// TestTmuxCompactionAndSpend runs the parley binary in tmux against a server that rejects
// prompts above a token budget: a long session compacts once, the screen shows the note and
// no retry, and the header shows the session's spend. Then a session token limit refuses the
// next message without sending it.
func TestTmuxCompactionAndSpend(t *testing.T) {
	bin := tmuxBinary(t)
	dir := t.TempDir()
	srv, err := demo.Start(demo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	home := filepath.Join(dir, "home")
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 20)
	for i := range 5 {
		cmd := exec.Command(bin, "-c", "-p", fmt.Sprintf("question %d: %s", i, filler), "--base-url", srv.URL(), "--model", "gpt-4o-mini")
		cmd.Env = append(os.Environ(), "PARLEY_HOME="+home)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building the session: %v\n%s", err, out)
		}
	}
	srv.SetContext(500, demo.OverflowLlamaCpp)
	x := tmux{t: t, socket: fmt.Sprintf("parley-spend-%d", os.Getpid())}
	defer exec.Command("tmux", "-L", x.socket, "kill-server").Run()
	command := func(args string) string {
		return fmt.Sprintf("env PARLEY_HOME=%s %s -c --base-url %s --model gpt-4o-mini %s; sleep 60", home, bin, srv.URL(), args)
	}

	x.run("new-session", "-d", "-s", "parley", "-x", "110", "-y", "30", command(""))
	x.waitScreen("idle")
	x.run("send-keys", "-t", "parley", "-l", "and in short?")
	x.run("send-keys", "-t", "parley", "Enter")
	screen := x.waitScreen("earlier messages left out to fit the model's context")
	screen = x.waitScreen("idle")
	if srv.Requests() != 7 {
		t.Fatalf("%d requests, want 5 + 2; screen:\n%s", srv.Requests(), screen)
	}
	if strings.Contains(screen, "retrying") || strings.Contains(screen, "reconnecting") || strings.Contains(screen, "✗") {
		t.Fatalf("a retry or a failure showed:\n%s", screen)
	}
	if header := strings.SplitN(screen, "\n", 2)[0]; !strings.Contains(header, " tok") || !strings.Contains(header, "$0.00") {
		t.Fatalf("the header shows no spend: %q", header)
	}
	x.run("send-keys", "-t", "parley", "C-c")

	// The same pane, a new parley: the tmux server stays up.
	x.run("respawn-pane", "-k", "-t", "parley", command("--max-tokens-session 1000"))
	x.waitScreenNot("earlier messages left out") // the new parley has drawn its screen
	x.waitScreen("idle")
	x.run("send-keys", "-t", "parley", "-l", "one more")
	x.run("send-keys", "-t", "parley", "Enter")
	screen = x.waitScreen("Spend limit reached")
	if srv.Requests() != 7 {
		t.Fatalf("%d requests; screen:\n%s", srv.Requests(), screen)
	}
	x.run("send-keys", "-t", "parley", "C-c")
}
