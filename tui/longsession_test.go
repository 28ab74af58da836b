package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/agent/chat"
	"parley/history"
)

// A long session shows its end from the first frame; the older messages arrive next, before
// what is shown, without moving the window or the selection.
func TestLongSessionOpensAtTheEndThenReadsTheRest(t *testing.T) {
	db := openDB(t)
	s, err := db.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	const turns = 150 // 300 messages: more than the first read takes
	for i := range turns {
		rc, err := db.Post(s.ID, fmt.Sprintf("question %d", i), "m", false)
		if err == nil {
			err = db.StartRun(rc.RunID)
		}
		if err == nil {
			err = db.AppendReply(rc.RunID, fmt.Sprintf("answer %d", i), "")
		}
		if err == nil {
			err = db.FinishRun(rc.RunID, history.Finish{Status: chat.StatusSucceeded})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	m := New(Options{DB: db, Client: offlineClient(), Session: s})
	m, _ = step(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m, cmd := step(m, m.loadSession(s.ID)())
	if m.transcript.Len() != firstScreen || !strings.Contains(plain(m), fmt.Sprintf("answer %d", turns-1)) {
		t.Fatalf("first frame holds %d messages; screen:\n%s", m.transcript.Len(), plain(m))
	}
	// The operator selects a reply and scrolls before the rest arrives.
	m, _ = step(m, press("esc"))
	m, _ = step(m, press("k"))
	m, _ = step(m, press("pgup"))
	before := plain(m)
	for _, msg := range execCmd(cmd, 5*time.Second) {
		m, _ = step(m, msg)
	}
	if m.transcript.Len() != 2*turns {
		t.Fatalf("after the second read %d messages, want %d", m.transcript.Len(), 2*turns)
	}
	if after := plain(m); after != before {
		t.Fatalf("the window moved when older messages arrived:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	// The oldest are reachable.
	m, _ = step(m, press("home"))
	if !strings.Contains(plain(m), "question 0") {
		t.Fatalf("home does not reach the first message:\n%s", plain(m))
	}
}
