package e2e

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"parley/internal/chat"
	"parley/internal/demo"
)

// Tier 2 end to end: the built binary under tmux (tmux_test.go) against a request-counting
// demo endpoint.

// startTier2Pane starts parley, with env set, in a pane of its own against a new demo
// endpoint.
func startTier2Pane(t *testing.T, env ...string) *pane {
	t.Helper()
	p := newPane(t, "fake-model", demo.Options{Pace: 5 * time.Millisecond})
	p.start(110, 30, env)
	return p
}

// sendTier2 starts parley as startTier2Pane does, against an endpoint that answers first as
// faults say, and sends text.
func sendTier2(t *testing.T, text string, faults ...demo.Fault) *pane {
	t.Helper()
	p := startTier2Pane(t)
	p.srv.Push(faults...)
	p.send(text)
	return p
}

// requests checks that the endpoint has received want chat requests in all, so far.
func (p *pane) requests(want int) {
	p.t.Helper()
	if n := p.srv.Requests(); n != want {
		p.t.Fatalf("%d requests, want %d; screen:\n%s", n, want, p.screen())
	}
}

// waitRequests waits until the endpoint has received n chat requests.
func (p *pane) waitRequests(n int) {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for p.srv.Requests() != n {
		if time.Now().After(deadline) {
			p.t.Fatalf("%d requests, waited for %d; screen:\n%s", p.srv.Requests(), n, p.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// quiet checks that no request leaves for d, and that the screen shows no retry meanwhile.
func (p *pane) quiet(d time.Duration) {
	p.t.Helper()
	n := p.srv.Requests()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		if s := p.screen(); strings.Contains(s, "retrying") {
			p.t.Fatalf("a retry is armed:\n%s", s)
		}
	}
	if got := p.srv.Requests(); got != n {
		p.t.Fatalf("%d requests left in %v after the last of %d", got-n, d, n)
	}
}

// waitExport waits until the exported session satisfies cond.
func (p *pane) waitExport(what string, cond func([]exported) bool) []exported {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		msgs := p.export()
		if cond(msgs) {
			return msgs
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(p.home, "parley.log"))
			p.t.Fatalf("timed out waiting for %s after %d requests; export %+v; log %s screen:\n%s", what, p.srv.Requests(), msgs, log, p.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// liveReplies returns the statuses of the live replies, in order.
func liveReplies(msgs []exported) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == "assistant" && !m.Superseded {
			out = append(out, m.Status)
		}
	}
	return out
}

// settledReplies returns a condition: n live replies, all succeeded.
func settledReplies(n int) func([]exported) bool {
	return func(msgs []exported) bool {
		return strings.Join(liveReplies(msgs), " ") == strings.TrimSpace(strings.Repeat("succeeded ", n))
	}
}

// TestTmuxTier2 runs the built binary under tmux against a request-counting demo endpoint:
// the Tier 2 banner, its retries and cancels, the classes that never arm, and r.
func TestTmuxTier2(t *testing.T) {
	t.Parallel()
	overloads := func(n int) []demo.Fault {
		f := make([]demo.Fault, n)
		for i := range f {
			f[i] = demo.Overloaded()
		}
		return f
	}

	t.Run("503 for two runs, then a reply", func(t *testing.T) {
		t.Parallel()
		// Tier 1 sends the first run 3 times; a Tier 2 retry is one request, with no Tier 1
		// retries stacked beneath it.
		p := sendTier2(t, "hello there", overloads(4)...)
		p.waitScreen("Provider overloaded — retrying in 2s (attempt 1) · esc cancel · enter retry now")
		p.requests(3)
		p.waitScreen("retrying in 4s (attempt 2)")
		p.waitScreen("retrying in 3s (attempt 2)") // it ticks
		msgs := p.waitExport("the reply", settledReplies(1))
		p.requests(5)
		s := p.waitScreen("idle")
		if strings.Contains(s, "retrying") || strings.Contains(s, "overloaded") {
			t.Fatalf("banner or failure still shown:\n%s", s)
		}
		var users, failed int
		for _, m := range msgs {
			switch {
			case m.Role == "user":
				users++
			case m.Superseded && m.Status == "failed" && m.Retry != nil && m.Retry.Class == chat.Overloaded:
				failed++
			}
		}
		if users != 1 || failed != 2 {
			t.Fatalf("export: %d operator rows, %d superseded overloaded replies; want 1 and 2: %+v", users, failed, msgs)
		}
		t.Logf("5 requests; export: %d messages, 2 superseded failed replies, the live one succeeded", len(msgs))
	})

	t.Run("429 Retry-After 3000 shows the time, esc clears it", func(t *testing.T) {
		t.Parallel()
		const zone = "Asia/Kolkata" // not the machine's zone: the banner must use the operator's
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Skipf("no time zone data: %v", err)
		}
		p := startTier2Pane(t, "TZ="+zone)
		p.srv.Push(demo.RateLimited(3000 * time.Second))
		sent := time.Now()
		p.send("hello")
		s := p.waitScreen("Rate limited — retrying after ")
		shown := regexp.MustCompile(`Rate limited — retrying after (.+?) · esc cancel`).FindStringSubmatch(s)
		if shown == nil {
			t.Fatalf("banner without a time:\n%s", s)
		}
		msgs := p.export()
		reply := msgs[len(msgs)-1]
		if reply.Retry == nil || reply.Retry.RetryAfterUntil.IsZero() {
			t.Fatalf("stored reply %+v", reply)
		}
		until := reply.Retry.RetryAfterUntil
		if d := until.Sub(sent); d < 3000*time.Second || d > 3010*time.Second {
			t.Fatalf("retry_after_until %v is %v after sending, want 3000 s", until, d)
		}
		want := chat.FormatClockIn(until, time.Now(), loc)
		if shown[1] != want {
			t.Fatalf("banner says %q, want %q (%s)", shown[1], want, zone)
		}
		if p.srv.Requests() != 1 {
			t.Fatalf("%d requests, want 1: Tier 1 hands a long wait to Tier 2", p.srv.Requests())
		}
		p.key("Escape")
		p.waitScreenNot("retrying after")
		p.waitScreen("retry cancelled")
		// The retry was 50 minutes away: what esc could have sent, it sent at once. Once parley
		// has quit it sends nothing more, and the count then is all it ever sent.
		p.quit()
		p.requests(1)
		t.Logf("banner %q for retry_after_until %s; 1 request when parley quit after esc", shown[0], until.Format(time.RFC3339))
	})

	t.Run("esc while armed", func(t *testing.T) {
		t.Parallel()
		p := sendTier2(t, "hello", overloads(3)...)
		p.waitScreen("retrying in")
		p.key("Escape")
		p.waitScreenNot("retrying in")
		p.waitScreen("retry cancelled")
		p.requests(3)
		p.quiet(8 * time.Second)
	})

	t.Run("esc while dispatching", func(t *testing.T) {
		t.Parallel()
		p := sendTier2(t, "hello", append(overloads(3), demo.Fault{Stall: true})...)
		p.waitScreen("retrying in")
		p.waitRequests(4) // the retry is out, and stalls
		p.waitScreen("waiting for the reply")
		p.key("Escape")
		// The retry had shown nothing: it is stored cancelled and hidden, and the reply it
		// retried stays the live one.
		p.waitExport("the retry stored cancelled", func(msgs []exported) bool {
			return len(msgs) > 0 && strings.Join(liveReplies(msgs), " ") == "failed" &&
				msgs[len(msgs)-1].Status == "cancelled" && msgs[len(msgs)-1].Superseded
		})
		p.quiet(8 * time.Second)
		p.requests(4)
	})

	for name, c := range map[string]struct {
		fault demo.Fault
		esc   bool   // the run stalls and esc cancels it
		shows string // what the screen says when the run has ended
	}{
		"401 never arms":             {fault: demo.BadKey(), shows: "Authentication failed"},
		"a cancelled run never arms": {fault: demo.Fault{Stall: true}, esc: true, shows: "cancelled"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := sendTier2(t, "hello", c.fault)
			if c.esc {
				p.waitRequests(1)
				p.waitScreen("waiting for the reply")
				p.key("Escape")
			}
			p.waitScreen(c.shows)
			p.quiet(3 * time.Second)
			p.requests(1)
		})
	}

	t.Run("r on the newest reply and an earlier one", func(t *testing.T) {
		t.Parallel()
		p := startTier2Pane(t)
		for i, q := range []string{"first question", "second question", "third question"} {
			p.send(q)
			p.waitExport("reply to "+q, settledReplies(i+1))
		}
		p.waitScreen("idle")
		p.escSelects("SELECT — ") // the newest is selected; a key sent before would read as alt+key
		p.key("r")
		p.waitRequests(4)
		p.waitExport("the newest reply again", func(msgs []exported) bool {
			return settledReplies(3)(msgs) && len(msgs) == 7
		})
		p.waitScreen("idle")
		p.key("k") // the third question
		p.key("k") // the reply before it
		p.press("r", "r again to regenerate from here — 2 later messages will be superseded")
		p.key("r")
		p.waitRequests(5)
		msgs := p.waitExport("the earlier reply again", func(msgs []exported) bool {
			return settledReplies(2)(msgs) && len(msgs) == 8
		})
		got := p.srv.Received()
		if !reflect.DeepEqual(got[3].Messages, got[2].Messages) {
			t.Fatalf("r on the newest sent %+v, the original sent %+v", got[3].Messages, got[2].Messages)
		}
		if !reflect.DeepEqual(got[4].Messages, got[1].Messages) {
			t.Fatalf("r on the earlier sent %+v, the original sent %+v", got[4].Messages, got[1].Messages)
		}
		var users []string
		var superseded []string
		for _, m := range msgs {
			if m.Role == "user" {
				users = append(users, m.Content)
			}
			if m.Superseded {
				superseded = append(superseded, m.Role)
			}
		}
		if strings.Join(users, "|") != "first question|second question|third question" {
			t.Fatalf("operator rows %q, want one per message typed", users)
		}
		// The second reply, the third question, its first reply and its regenerated reply.
		if strings.Join(superseded, " ") != "assistant user assistant assistant" {
			t.Fatalf("superseded %v", superseded)
		}
		s := p.screen()
		if strings.Contains(s, "third question") || !strings.Contains(s, "second question") {
			t.Fatalf("screen:\n%s", s)
		}
		t.Logf("requests 4 and 5 equal requests 3 and 2; export: %d messages, %d superseded, 3 operator rows", len(msgs), len(superseded))
	})
}
