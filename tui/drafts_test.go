package tui

import (
	"strings"
	"testing"
	"time"

	"parley/history/historytest"
	"parley/history/stored"
	"parley/internal/attach"
)

// Drafts are never lost: kept through a quit, stored a little after typing stops, and kept for
// a session not stored yet.

func TestDraftsSurviveAQuit(t *testing.T) {
	t.Parallel()
	db := historytest.Open(t)
	s := storedSession(t, db, "first question", "first answer")
	open := func(s stored.Session) Model {
		m, _ := openOffline(t, db, s, 80, 24)
		return m
	}
	m := typeText(open(s), "a thought to finish later")
	m, _ = step(m, press("ctrl+c"))
	if _, cmd := step(m, press("ctrl+c")); !quits(cmd) {
		t.Fatal("ctrl+c twice did not quit")
	}
	if m = open(s); m.input.Value() != "a thought to finish later" {
		t.Fatalf("reopened with %q", m.input.Value())
	}

	// Stored a little after typing stops, too: a closed terminal loses at most that.
	m, cmd := step(m, press("!"))
	for _, msg := range execCmd(cmd, 2*draftDelay) {
		if tick, ok := msg.(draftTickMsg); ok {
			m, cmd = step(m, tick)
			execCmd(cmd, time.Second) // stores it
		}
	}
	if got, err := db.Draft(s.ID); err != nil || got != "a thought to finish later!" {
		t.Fatalf("stored draft %q, %v", got, err)
	}

	// A new session's draft waits under no id, and moves to the session its first message
	// stores.
	m = typeText(open(stored.Session{}), "for a new session")
	if _, cmd := step(m, press("ctrl+d")); quits(cmd) {
		t.Fatal("ctrl+d quit with a draft")
	}
	m, _ = step(m, press("ctrl+c"))
	m, cmd = step(m, press("ctrl+c"))
	if !quits(cmd) {
		t.Fatal("no quit")
	}
	m = open(stored.Session{})
	if m.input.Value() != "for a new session" {
		t.Fatalf("a new session opened with %q", m.input.Value())
	}
	if ss, _ := db.Sessions(); len(ss) != 1 {
		t.Fatalf("%d sessions listed: opening parley stored one", len(ss))
	}
}

// Files attached with /file are part of the draft: they survive a quit, and go once sent.
func TestAttachedFilesSurviveAQuit(t *testing.T) {
	t.Parallel()
	db := historytest.Open(t)
	s := storedSession(t, db, "first question", "first answer")
	open := func() Model {
		m, _ := openOffline(t, db, s, 80, 24)
		return m
	}
	m := open()
	m, _ = step(m, attachedMsg{file: attach.File{Path: "notes.md", Text: "remember the milk\n"}})
	_, cmd := step(m, press("ctrl+d"))
	if !quits(cmd) {
		t.Fatal("ctrl+d did not quit")
	}
	m = open()
	if len(m.next.files) != 1 || m.next.files[0].Path != "notes.md" || !strings.Contains(plain(m), "notes.md") {
		t.Fatalf("reopened with %+v:\n%s", m.next.files, plain(m))
	}
	m = typeText(m, "what is in it?")
	m, cmd = step(m, press("enter"))
	execCmd(cmd, time.Second)
	if files, _ := db.DraftFiles(s.ID); len(files) != 0 {
		t.Fatalf("sent, and still the draft's: %+v", files)
	}
}
