package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/internal/demo"
	"parley/internal/testenv"
)

// A long reply's end, told where the operator is not: tmux's bell flag on the window left
// behind, and the title and modes given back at exit as the terminal's own record shows.

// A 12 s reply that ends while its tmux window is not the current one (a detached tmux
// reports no focus: the bell rings after 10 s anyway) sets the window's bell flag; with
// notify = "off" it does not.
func TestTmuxALongReplyRingsTheBellOfAWindowLeftBehind(t *testing.T) {
	t.Parallel()
	// Both replies run at once from this one test: its slot waits 12 s once, not twice, and
	// it holds no place in the queue of parallel subtests behind the rest of the suite.
	notifies := []string{"", "off"}
	panes := make([]*pane, len(notifies))
	sent := make([]time.Time, len(notifies))
	for i, notify := range notifies {
		// 120 chunks 100 ms apart: a reply of 12 s.
		p := newPane(t, "m", demo.Options{Pace: 100 * time.Millisecond, Tokens: 120})
		if notify != "" {
			writeFile(t, p.home, "config.toml", fmt.Sprintf("notify = %q\n", notify), 0o600)
		}
		p.start(100, 30, nil)
		p.send("tell me a long story")
		p.waitScreen("esc cancels")
		sent[i] = time.Now()
		p.tmux("new-window", "-t", "parley") // now the current window: the first is left behind
		panes[i] = p
	}
	for i, notify := range notifies {
		waitForTheBell(t, panes[i], notify, sent[i])
	}
}

// waitForTheBell waits for the reply sent at sent to end in p's first window, and checks that
// its bell rang after 10 s, or with notify = "off" that it did not.
func waitForTheBell(t *testing.T, p *pane, notify string, sent time.Time) {
	t.Helper()
	bell := func() bool {
		return strings.TrimSpace(p.tmux("display-message", "-p", "-t", "parley:0", "#{window_bell_flag}")) == "1"
	}
	screen := func() string { return p.tmux("capture-pane", "-p", "-t", "parley:0") }
	deadline := sent.Add(40 * time.Second)
	for {
		rang, ended := bell(), !strings.Contains(screen(), "esc cancels")
		if rang {
			if notify == "off" {
				t.Fatal("notify = \"off\" rang the bell")
			}
			if took := time.Since(sent); took < 10*time.Second {
				t.Fatalf("the bell rang %v after the send, before the reply could take 10 s", took)
			}
			return
		}
		if ended {
			if notify == "off" {
				return // ended without a bell
			}
			// The flag is set as the bell is read: look once more before failing.
			time.Sleep(500 * time.Millisecond)
			if !bell() {
				t.Fatalf("the reply ended %v after the send with no bell:\n%s", time.Since(sent), screen())
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("notify=%q: the reply did not end within 40 s:\n%s", notify, screen())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// script's record of a session, what the terminal was sent, shows the terminal's title pushed
// as the screen starts, and popped at exit with the cursor style and the wheel mode reset, after
// the screen has left the alternate screen: on /quit, and on ctrl+c (twice: the first says the
// next one quits).
func TestTmuxExitGivesBackTheTitleAndModes(t *testing.T) {
	t.Parallel()
	for _, quit := range []string{"/quit", "C-c"} {
		t.Run(quit, func(t *testing.T) {
			t.Parallel()
			exitGivesBack(t, quit)
		})
	}
}

func exitGivesBack(t *testing.T, quit string) {
	script := testenv.Tool(t, "script", "apt-get install util-linux")
	// Paced as a model types, so that frames are drawn while the reply streams.
	p := newPane(t, "m", demo.Options{Pace: demo.DefaultPace})
	record := filepath.Join(t.TempDir(), "record")
	inner := strings.TrimSuffix(p.command(nil), "; sleep 60")
	p.newSession("-d", "-s", "parley", "-x", "100", "-y", "30", fmt.Sprintf("%s -q -f -c %q %s; sleep 60", script, inner, record))
	p.waitScreen("idle")
	p.send("hello")
	p.waitScreen("Assistant")
	p.waitScreen("idle")
	if quit == "/quit" {
		p.send(quit)
	} else {
		p.press(quit, "again quits")
		p.key(quit)
	}
	deadline := time.Now().Add(30 * time.Second)
	var rec string
	for {
		b, _ := os.ReadFile(record)
		rec = string(b)
		if strings.Contains(rec, "\x1b[23;0t") || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	push := strings.Index(rec, "\x1b[22;0t")
	alt := strings.Index(rec, "\x1b[?1049h")
	if push < 0 || alt < 0 || push > alt {
		t.Fatalf("the title is not pushed before the screen starts (push at %d, alternate screen at %d):\n%q", push, alt, head(rec))
	}
	leave := strings.LastIndex(rec, "\x1b[?1049l")
	if leave < 0 {
		t.Fatalf("the alternate screen was never left:\n%q", tail(rec))
	}
	exit := rec[leave:]
	for _, seq := range []string{"\x1b[23;0t", "\x1b[0 q", "\x1b[?1007l"} {
		if !strings.Contains(exit, seq) {
			t.Fatalf("%q is not written at exit; the record's end:\n%q", seq, tail(rec))
		}
	}
	if !strings.Contains(rec, "\x1b]2;… ") {
		t.Fatalf("the title never said a reply was streaming:\n%q", head(rec))
	}
}

func head(s string) string { return s[:min(len(s), 2000)] }
func tail(s string) string { return s[max(0, len(s)-2000):] }
