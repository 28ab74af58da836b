package tui

import (
	"strings"
	"testing"
	"time"

	"parley/history"
	"parley/history/historytest"
)

// A message whose store failed is never dropped: it comes back into the input with everything
// queued behind it, before what was typed meanwhile, and nothing more is sent until the
// operator says so.
func TestMessagesThatCouldNotBeStoredComeBack(t *testing.T) {
	db := historytest.Open(t)
	m, _ := openOffline(t, db, history.Session{}, 80, 24)
	if err := db.Close(); err != nil { // from now on every store fails
		t.Fatal(err)
	}
	m = typeText(m, "first")
	m, post := step(m, press("enter"))
	m = typeText(m, "second")
	m, _ = step(m, press("enter"))
	m = typeText(m, "third")
	m, _ = step(m, press("enter"))
	m = typeText(m, "typed while it waited")
	if len(m.outbox) != 2 || !m.posting {
		t.Fatalf("outbox %q, posting %v: want two messages behind the one being stored", m.outbox, m.posting)
	}
	msgs := execCmd(post, 5*time.Second)
	if len(msgs) != 1 {
		t.Fatalf("the store gave %d messages", len(msgs))
	}
	m, cmd := step(m, msgs[0])
	if want := "first\n\nsecond\n\nthird\n\ntyped while it waited"; m.input.Value() != want {
		t.Fatalf("input %q, want %q", m.input.Value(), want)
	}
	if cmd != nil || m.posting || len(m.outbox) != 0 {
		t.Fatalf("something more was sent: posting %v, outbox %q", m.posting, m.outbox)
	}
	if s := plain(m); !strings.Contains(s, "not sent: could not store the message") || !strings.Contains(s, "it is back in") {
		t.Fatalf("no notice:\n%s", s)
	}
}
