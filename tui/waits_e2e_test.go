package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/agent/demo"
	"parley/agent/demo/demotest"
)

// A provider's wait outlives the process that heard it, on the chat screen: what the operator
// sees after a restart, while the endpoint is held, and when a fallback is offered.
func TestTmuxProviderWaits(t *testing.T) {
	rateLimited := demo.Fault{Status: 429, Header: map[string]string{"Retry-After": "3000"},
		Body: `{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`}

	t.Run("a remembered wait schedules the message instead of sending it", func(t *testing.T) {
		t.Parallel()
		p := newPane(t, "m", demo.Options{Pace: time.Millisecond})
		p.srv.Push(rateLimited)
		cmd := exec.Command(p.bin, "-p", "first", "--base-url", p.srv.URL(), "--model", "m")
		cmd.Env = append(os.Environ(), "PARLEY_HOME="+p.home)
		cmd.Run() // exit 3: rate limited for 50 minutes
		p.start(120, 40, nil)
		p.send("second")
		p.waitScreen("Rate limited — sending after ")
		p.waitScreen("· esc cancel · enter send now")
		p.key("Escape")
		p.waitScreen("retry cancelled")
		time.Sleep(3 * time.Second)
		if n := p.srv.Requests(); n != 1 {
			t.Errorf("%d requests; the held message must not be sent", n)
		}
	})

	t.Run("after a restart: the offer, and nothing sent", func(t *testing.T) {
		t.Parallel()
		p := newPane(t, "m", demo.Options{Pace: time.Millisecond})
		p.srv.Push(rateLimited)
		cmd := exec.Command(p.bin, "-p", "first", "--base-url", p.srv.URL(), "--model", "m")
		cmd.Env = append(os.Environ(), "PARLEY_HOME="+p.home)
		cmd.Run()
		p.start(120, 40, nil, "-c")
		p.waitScreen("Rate limited until ")
		p.waitScreen("enter to schedule, esc to dismiss")
		time.Sleep(10 * time.Second)
		if n := p.srv.Requests(); n != 1 {
			t.Errorf("%d requests after opening the session", n)
		}
		p.key("Enter")
		p.waitScreen("Rate limited — retrying after ")
	})

	t.Run("f sends the armed retry to the fallback", func(t *testing.T) {
		t.Parallel()
		p := newPane(t, "big", demo.Options{Pace: time.Millisecond})
		for range 20 {
			p.srv.Push(demo.Overloaded())
		}
		spare := demotest.Start(t, demo.Options{Pace: time.Millisecond})
		cfg := fmt.Sprintf("profile = \"main\"\n[profiles.main]\nfallback = \"spare\"\n[profiles.spare]\nbase_url = %q\nmodel = \"small\"\n", spare.URL())
		if err := os.WriteFile(filepath.Join(p.home, "config.toml"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		p.start(120, 40, nil)
		p.send("hello")
		p.waitScreen("ctrl+f send to small now")
		before := p.srv.Requests()
		p.key("C-f")
		p.waitScreen("Assistant · small")
		p.waitScreen("idle")
		if spare.Requests() != 1 || p.srv.Requests() != before {
			t.Errorf("fallback got %d requests, the first endpoint %d more", spare.Requests(), p.srv.Requests()-before)
		}
		if screen := p.screen(); !strings.Contains(screen, "small") {
			t.Errorf("the reply does not show the fallback model:\n%s", screen)
		}
	})
}
