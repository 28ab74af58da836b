package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/agent/demo"
)

// The built parley in tmux against a server that thinks before it answers, in silence, or
// stalls: what the operator sees.
func TestTmuxThinking(t *testing.T) {
	t.Run("thinking streams as one line, then the answer", func(t *testing.T) {
		t.Parallel()
		p := newPane(t, "deepseek-reasoner", demo.Options{Pace: 5 * time.Millisecond})
		p.srv.Push(demo.Fault{Think: demo.ThinkReasoningContent, ThinkFor: 3 * time.Second})
		p.start(120, 40, nil)
		p.send("what is tcp")
		sent := time.Now()
		p.waitScreen("Thinking… ")
		if took := time.Since(sent); took > 1500*time.Millisecond {
			t.Errorf("the thinking line took %s to show", took)
		}
		screen := p.waitScreen("Thought for ")
		p.waitScreen("idle")
		screen = p.screen()
		if strings.Contains(screen, "The user asks") {
			t.Errorf("collapsed thinking shows its text:\n%s", screen)
		}
		if p.srv.Requests() != 1 {
			t.Errorf("%d requests", p.srv.Requests())
		}
		time.Sleep(selectGuard) // esc sooner after a reply is a late stop, not select
		p.key("Escape")
		p.waitScreen("SELECT") // esc and t sent together would read as alt+t
		p.key("t")
		p.waitScreen("▾ Thought for ")
		if !strings.Contains(p.screen(), "The user asks") {
			t.Errorf("expanded thinking does not show:\n%s", p.screen())
		}
	})
	t.Run("a silent thinker: the wait counts up", func(t *testing.T) {
		t.Parallel()
		p := newPane(t, "o3-mini", demo.Options{Pace: 5 * time.Millisecond})
		p.srv.Push(demo.Fault{Think: demo.ThinkSilent, ThinkFor: 5 * time.Second})
		p.start(120, 40, nil)
		p.send("hard question")
		p.waitScreen("waiting for the reply · 2s")
		p.waitScreen("waiting for the reply · 4s")
		p.waitScreen("idle")
		if p.srv.Requests() != 1 {
			t.Errorf("%d requests", p.srv.Requests())
		}
	})
	t.Run("cut at the token limit", func(t *testing.T) {
		t.Parallel()
		p := newPane(t, "deepseek-reasoner", demo.Options{Pace: time.Millisecond})
		p.srv.Push(demo.Fault{Think: demo.ThinkReasoningContent, ThinkOnly: true, Finish: "length"})
		p.start(120, 40, nil)
		p.send("think hard")
		p.waitScreen("stopped at the token limit while thinking — no answer")
	})
	t.Run("a stall after the first words arms Tier 2", func(t *testing.T) {
		t.Parallel()
		p := newPane(t, "m", demo.Options{Pace: time.Millisecond})
		p.srv.Push(demo.Fault{StallAfter: 3})
		if err := os.WriteFile(filepath.Join(p.home, "config.toml"), []byte("[profiles.local]\nstream_idle_timeout = \"2s\"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		p.start(120, 40, nil, "--profile", "local")
		p.send("what is tcp")
		p.waitScreen("Timed out — retrying in")
		p.key("Escape")
		p.waitScreen("retry cancelled")
	})
}
