package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// A paste of 50 lines sent as tmux's paste-buffer sends it (lines ended by CR, the last one
// too) shows collapsed in the transcript, and ctrl+o shows it whole; what was sent and stored
// is the whole paste (its last line end trimmed, as every message's is).
func TestSentPasteShowsCollapsedOnTheScreen(t *testing.T) {
	t.Parallel()
	d, srv, _, db := demoScreen(t, screenConfig{})
	paste := logLines(50, "\r")
	d.send(tea.PasteMsg{Content: paste})
	d.send(press("enter"))
	d.until("the reply", answered(t, 2))
	whole := strings.TrimSuffix(strings.ReplaceAll(paste, "\r", "\n"), "\n")
	if got := srv.Received()[0].Messages[0].Content; got != whole {
		t.Fatalf("sent %q, want the whole paste", got)
	}
	if got := liveMessages(t, db, d.m.session.ID)[0].Content; got != whole {
		t.Fatalf("stored %q, want the whole paste", got)
	}
	d.m.transcript.GotoTop()
	if s := plain(d.m); !strings.Contains(s, "[pasted 50 lines · ctrl+o expands]") || strings.Contains(s, "log line 10") {
		t.Fatalf("the sent paste is not collapsed:\n%s", s)
	}
	d.send(press("ctrl+o"))
	d.m.transcript.GotoTop()
	if s := plain(d.m); !strings.Contains(s, "log line 10") || !strings.Contains(s, "ctrl+o collapse paste") || strings.Contains(s, "[pasted") {
		t.Fatalf("ctrl+o did not show the paste whole:\n%s", s)
	}
	d.send(press("ctrl+o"))
	d.m.transcript.GotoTop()
	if s := plain(d.m); !strings.Contains(s, "[pasted 50 lines · ctrl+o expands]") {
		t.Fatalf("a second ctrl+o did not collapse it again:\n%s", s)
	}
}

// e on a message sent with a long paste puts it back in the input with the paste collapsed as
// it was, and the edit sends it whole.
func TestAnEditHoldsTheSentPasteCollapsed(t *testing.T) {
	t.Parallel()
	d, srv, _, _ := demoScreen(t, screenConfig{})
	paste := logLines(30, "\n")
	d.input("look: ")
	d.send(tea.PasteMsg{Content: paste})
	d.typeAndSend("why?")
	d.until("the reply", answered(t, 2))
	d.selectReplies()
	d.send(press("up"))
	d.send(press("e"))
	if s := plain(d.m); !strings.Contains(s, "┃ look: [pasted 30 lines]why?") {
		t.Fatalf("the edit does not hold the paste collapsed:\n%s", s)
	}
	d.send(press("enter"))
	d.until("the edit's reply", func(m Model) bool { return len(srv.Received()) == 2 && m.active == nil })
	sent := srv.Received()[1].Messages
	if got, want := sent[len(sent)-1].Content, "look: "+paste+"why?"; got != want {
		t.Fatalf("the edit sent %q, want %q", got, want)
	}
}

// logLines is a paste of n numbered log lines, each ended by end as the terminal sent it.
func logLines(n int, end string) string {
	var paste strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&paste, "log line %02d%s", i, end)
	}
	return paste.String()
}
