package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"parley/internal/chat"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// askThinker starts parley for model in a 120×40 pane against a server that sends its tokens
// pace apart and answers first as fault says, and sends question.
func askThinker(t *testing.T, model string, pace time.Duration, fault demo.Fault, question string) *pane {
	t.Helper()
	p := newPane(t, model, demo.Options{Pace: pace})
	p.srv.Push(fault)
	p.start(120, 40, nil)
	p.send(question)
	return p
}

// The built parley in tmux against a server that thinks before it answers, in silence, or
// stalls: what the operator sees.
func TestTmuxThinking(t *testing.T) {
	t.Parallel()
	t.Run("thinking streams as one line, then the answer", func(t *testing.T) {
		t.Parallel()
		thinks := demo.Fault{Think: demo.ThinkReasoningContent, ThinkFor: 3 * time.Second}
		p := askThinker(t, "deepseek-reasoner", 5*time.Millisecond, thinks, "what is tcp")
		// The thinking shows while it streams, not once it is over.
		if s := p.waitScreen("Thinking… "); strings.Contains(s, "Thought for ") {
			t.Errorf("the thinking line showed only once the thinking was over:\n%s", s)
		}
		p.waitScreen("Thought for ")
		p.waitScreen("idle")
		screen := p.screen()
		if strings.Contains(screen, "The user asks") {
			t.Errorf("collapsed thinking shows its text:\n%s", screen)
		}
		if p.srv.Requests() != 1 {
			t.Errorf("%d requests", p.srv.Requests())
		}
		p.escSelects("SELECT") // esc and t sent together would read as alt+t
		p.press("t", "▾ Thought for ")
		if !strings.Contains(p.screen(), "The user asks") {
			t.Errorf("expanded thinking does not show:\n%s", p.screen())
		}
	})
	t.Run("a silent thinker: the wait counts up", func(t *testing.T) {
		t.Parallel()
		silent := demo.Fault{Think: demo.ThinkSilent, ThinkFor: 5 * time.Second}
		p := askThinker(t, "o3-mini", 5*time.Millisecond, silent, "hard question")
		p.waitScreen("waiting for the reply · 2s")
		p.waitScreen("waiting for the reply · 4s")
		p.waitScreen("idle")
		if p.srv.Requests() != 1 {
			t.Errorf("%d requests", p.srv.Requests())
		}
	})
	t.Run("cut at the token limit", func(t *testing.T) {
		t.Parallel()
		fault := demo.Fault{Think: demo.ThinkReasoningContent, ThinkOnly: true, Finish: "length"}
		p := askThinker(t, "deepseek-reasoner", time.Millisecond, fault, "think hard")
		p.waitScreen("stopped at the token limit while thinking — no answer")
	})
	t.Run("a stall after the first words arms Tier 2", func(t *testing.T) {
		t.Parallel()
		p := newPane(t, "m", demo.Options{Pace: time.Millisecond})
		// Every attempt stalls, so a banner is always on its way: the first one's 2 s can pass
		// unseen on a loaded machine, the later ones wait longer.
		p.srv.Push(demo.Fault{StallAfter: 3}, demo.Fault{StallAfter: 3}, demo.Fault{StallAfter: 3}, demo.Fault{StallAfter: 3})
		writeFile(t, p.home, "config.toml", "[profiles.local]\nstream_idle_timeout = \"2s\"\n", 0o600)
		p.start(120, 40, nil, "--profile", "local")
		p.send("what is tcp")
		p.waitScreen("Timed out — retrying in")
		p.press("Escape", "retry cancelled")
	})
}

// rateLimitedPane returns a pane, not started, whose endpoint rate-limited a first message sent
// in print mode: parley remembers the wait, 50 minutes.
func rateLimitedPane(t *testing.T) *pane {
	t.Helper()
	p := newPane(t, "m", demo.Options{Pace: time.Millisecond})
	p.srv.Push(demo.Fault{Status: 429, Header: map[string]string{"Retry-After": "3000"},
		Body: `{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`})
	cmd := exec.Command(p.bin, "-p", "first", "--base-url", p.srv.URL(), "--model", "m")
	cmd.Env = append(os.Environ(), "PARLEY_HOME="+p.home)
	cmd.Run() // exit 3: rate limited
	return p
}

// A provider's wait outlives the process that heard it, on the chat screen: what the operator
// sees after a restart, while the endpoint is held, and when a fallback is offered.
func TestTmuxProviderWaits(t *testing.T) {
	t.Parallel()
	t.Run("a remembered wait schedules the message instead of sending it", func(t *testing.T) {
		t.Parallel()
		p := rateLimitedPane(t)
		p.start(120, 40, nil)
		p.send("second")
		p.waitScreen("Rate limited — sending after ")
		p.waitScreen("· esc cancel · enter send now")
		p.press("Escape", "retry cancelled")
		// Once parley has quit it sends nothing more: the count then is all it ever sent.
		p.quit()
		p.requests(1)
	})

	t.Run("a held run says when the wait was said, in the operator's zone", func(t *testing.T) {
		t.Parallel()
		zone, err := time.LoadLocation("Asia/Kolkata") // a half-hour offset: no zone mistaken for it
		if err != nil {
			t.Skip("no time zone database:", err)
		}
		before := time.Now().In(zone)
		p := rateLimitedPane(t)
		after := time.Now().In(zone)
		p.start(120, 40, []string{"TZ=Asia/Kolkata"})
		p.send("second")
		s := p.waitScreen("held: the endpoint said at ")
		said := func(at time.Time) string {
			return fmt.Sprintf("held: the endpoint said at %s to wait until %s · nothing sent", chat.FormatClockIn(at, at, zone), chat.FormatClockIn(at.Add(50*time.Minute), at, zone))
		}
		if flat := strings.Join(strings.Fields(s), " "); !strings.Contains(flat, said(before)) && !strings.Contains(flat, said(after)) {
			t.Fatalf("want %q; screen:\n%s", said(after), s)
		}
		if strings.Contains(s, "Rate limit reached for requests") {
			t.Fatalf("the provider's words to the earlier request are shown as if said now:\n%s", s)
		}
		p.requests(1)
	})

	t.Run("after a restart: the offer, and nothing sent", func(t *testing.T) {
		t.Parallel()
		p := rateLimitedPane(t)
		p.start(120, 40, nil, "-c")
		p.waitScreen("Rate limited until ")
		p.waitScreen("enter to schedule, esc to dismiss")
		p.requests(1)
		p.press("Enter", "Rate limited — retrying after ")
		// Neither the offer nor enter sent anything: once parley has cancelled the retry and
		// quit it sends nothing more, and the count then is all it ever sent.
		p.press("Escape", "retry cancelled")
		p.quit()
		p.requests(1)
	})

	t.Run("f sends the armed retry to the fallback", func(t *testing.T) {
		t.Parallel()
		p := newPane(t, "big", demo.Options{Pace: time.Millisecond})
		p.srv.Push(demo.Times(20, demo.Overloaded())...)
		spare := demotest.Start(t, demo.Options{Pace: time.Millisecond})
		cfg := fmt.Sprintf("profile = \"main\"\n[profiles.main]\nfallback = \"spare\"\n[profiles.spare]\nbase_url = %q\nmodel = \"small\"\n", spare.URL())
		writeFile(t, p.home, "config.toml", cfg, 0o600)
		p.start(120, 40, nil)
		p.send("hello")
		p.waitScreen("ctrl+f send to small now")
		before := p.srv.Requests()
		p.press("C-f", "Assistant · small")
		p.waitScreen("idle")
		if spare.Requests() != 1 || p.srv.Requests() != before {
			t.Errorf("fallback got %d requests, the first endpoint %d more", spare.Requests(), p.srv.Requests()-before)
		}
		if screen := p.screen(); !strings.Contains(screen, "small") {
			t.Errorf("the reply does not show the fallback model:\n%s", screen)
		}
	})
}
