package tui

import (
	"fmt"
	"strings"
	"testing"

	"parley/history/historytest"
	"parley/internal/chat/chattest"
)

// F on the 3rd of 6 replies opens a new session holding the first 3 turns, titled and linked
// to its origin in the header; the origin still holds its 6.
func TestForkAtTheThirdOfSixTurns(t *testing.T) {
	t.Parallel()
	db := historytest.Open(t)
	s := storedSession(t, db, "question 1", "answer 1")
	for i := 2; i <= 6; i++ {
		storeExchange(t, db, s.ID, fmt.Sprintf("question %d", i), fmt.Sprintf("answer %d", i))
	}
	m, _ := openOffline(t, db, s, 120, 40)
	d := newDriver(t, m)
	d.m.clock.(*chattest.Clock).Advance(selectGuard) // esc selects a moment after opening
	d.selectReplies()
	d.pressUntil("up", "answer 3", func(m Model) bool { return m.transcript.Text(m.transcript.Selected()) == "answer 3" })
	d.send(press("F"))
	d.until("the fork to open", func(m Model) bool { return m.session.ID != s.ID && m.forkOf != nil })
	shown := d.m.transcript.OperatorTexts() // newest first
	if len(shown) != 3 || shown[0] != "question 3" || d.m.transcript.Text(d.m.transcript.LastReply()) != "answer 3" {
		t.Fatalf("the fork shows %q; want the first 3 turns", shown)
	}
	if h := plain(d.m); !strings.Contains(h, `forked from "question 1" at `) {
		t.Fatalf("the header does not name the origin:\n%s", h)
	}
	if origin := liveMessages(t, db, s.ID); len(origin) != 12 {
		t.Fatalf("the origin holds %d messages, want its 12", len(origin))
	}
	if fork := liveMessages(t, db, d.m.session.ID); len(fork) != 6 {
		t.Fatalf("the fork holds %d messages, want 6", len(fork))
	}
}
