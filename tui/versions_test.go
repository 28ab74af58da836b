package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"parley/history"
)

// The version view of a reply, opened with [ and ].

// versionsDB stores one question answered twice: the first answer superseded by the second.
func versionsDB(t *testing.T) (*history.DB, history.Session) {
	t.Helper()
	db := openDB(t)
	s := newSessionIn(t, db)
	r := storeExchange(t, db, s.ID, "Name a colour.", "Blue, the **first** answer.")
	g, err := db.Regenerate(r.AnchorID, "test-model", false)
	if err != nil {
		t.Fatal(err)
	}
	storeAnswer(t, db, g, "Green, the second answer.")
	s, err = db.Session(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	return db, s
}

func TestVersionsCycleThroughEarlierReplies(t *testing.T) {
	db, s := versionsDB(t)
	m, _ := openOffline(t, db, s, 80, 24)
	m, _ = step(m, press("esc"))
	m = runCmds(step(m, press("]")))
	if m.focus != focusTranscript || !strings.Contains(m.notice, "no later version") {
		t.Fatalf("] on the live reply: focus %v, notice %q", m.focus, m.notice)
	}
	m = runCmds(step(m, press("[")))
	if m.focus != focusVersions {
		t.Fatalf("[ did not open the versions:\n%s", plain(m))
	}
	screen := plain(m)
	if !strings.Contains(screen, "Version 1/2 · superseded") || !strings.Contains(screen, "Blue, the first answer.") ||
		strings.Contains(screen, "Green") {
		t.Fatalf("version 1:\n%s", screen)
	}
	m, _ = step(m, press("]"))
	if s := plain(m); !strings.Contains(s, "Version 2/2 · live") || !strings.Contains(s, "Green, the second answer.") {
		t.Fatalf("version 2:\n%s", s)
	}
	m, _ = step(m, press("]")) // stays on the newest
	if !strings.Contains(plain(m), "Version 2/2") {
		t.Fatalf("] past the newest:\n%s", plain(m))
	}
	m, _ = step(m, press("["))
	golden.RequireEqual(t, asciiView(m))
	for _, k := range []string{"j", "down", "pgdown", "space", "k", "up", "pgup"} {
		if m, _ = step(m, press(k)); m.focus != focusVersions || !strings.Contains(plain(m), "Version 1/2") {
			t.Fatalf("%s scrolls the version shown; screen:\n%s", k, plain(m))
		}
	}
	m, _ = step(m, press("esc"))
	if m.focus != focusTranscript || strings.Contains(plain(m), "Version") || !strings.Contains(plain(m), "Green") {
		t.Fatalf("esc did not close the versions:\n%s", plain(m))
	}
}

func TestVersionsOfAReplyWithOnlyOne(t *testing.T) {
	db := openDB(t)
	s := newSessionIn(t, db)
	if _, err := db.Post(s.ID, "only once", "test-model", false); err != nil {
		t.Fatal(err)
	}
	m, _ := openOffline(t, db, s, 80, 24)
	m, _ = step(m, press("esc"))
	m = runCmds(step(m, press("[")))
	if m.focus != focusTranscript || !strings.Contains(m.notice, "only one version") {
		t.Fatalf("focus %v, notice %q", m.focus, m.notice)
	}
}
