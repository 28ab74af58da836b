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
	var paste strings.Builder
	for i := 1; i <= 50; i++ {
		fmt.Fprintf(&paste, "log line %02d\r", i)
	}
	d.send(tea.PasteMsg{Content: paste.String()})
	d.send(press("enter"))
	d.until("the reply", answered(t, 2))
	whole := strings.TrimSuffix(strings.ReplaceAll(paste.String(), "\r", "\n"), "\n")
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
