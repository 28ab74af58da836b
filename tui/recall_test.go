package tui

import (
	"testing"

	"parley/history/historytest"
)

// ctrl+p walks the messages sent in this session, then those sent on the screen in earlier
// sessions, newest first, as a shell's history does.
func TestRecallWalksOnIntoEarlierSessions(t *testing.T) {
	t.Parallel()
	db := historytest.Open(t)
	db.SetInteractive()
	storedSession(t, db, "from the oldest session", "an answer")
	earlier := storedSession(t, db, "from the session before", "an answer")
	storeExchange(t, db, earlier.ID, "this session's question", "an answer") // sent here too: walked once
	s := storedSession(t, db, "this session's question", "an answer")
	m, _ := openOffline(t, db, s, 100, 30)

	want := []string{"this session's question", "from the session before", "from the oldest session"}
	for i, text := range want {
		m, _ = step(m, press("ctrl+p"))
		if got := m.input.Value(); got != text {
			t.Fatalf("ctrl+p %d: %q, want %q", i+1, got, text)
		}
	}
	m, _ = step(m, press("ctrl+p"))
	if got := m.input.Value(); got != want[2] {
		t.Fatalf("ctrl+p past the oldest: %q", got)
	}
	m, _ = step(m, press("ctrl+n"))
	if got := m.input.Value(); got != want[1] {
		t.Fatalf("ctrl+n: %q, want %q", got, want[1])
	}
}
