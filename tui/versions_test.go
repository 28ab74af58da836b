package tui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/charmbracelet/x/exp/golden"

	"parley/history"
	"parley/history/historytest"
	"parley/history/stored"
)

// The version view of a reply, opened with [ and ].

// versionsDB stores one question answered twice: the first answer superseded by the second.
func versionsDB(t *testing.T) (*history.DB, stored.Session) {
	t.Helper()
	db := historytest.Open(t)
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

// tookSeconds is a duration in the versions table's took column.
var tookSeconds = regexp.MustCompile(`\b\d+\.\ds\b`)

func TestVersionsCycleThroughEarlierReplies(t *testing.T) {
	t.Parallel()
	db, s := versionsDB(t)
	m, _ := openOffline(t, db, s, 80, 24)
	m, _ = step(m, press("esc"))
	m = runCmds(step(m, press("]")))
	if m.focus != focusTranscript || !strings.Contains(m.notice, "no later version") {
		t.Fatalf("] on the live reply: focus %v, notice %q", m.focus, m.notice)
	}
	m = runCmds(step(m, press("[")))
	if !versionsOpen(m) {
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
	// The fixture's runs took what this machine took to store them; the golden says 0.0s.
	golden.RequireEqual(t, tookSeconds.ReplaceAllString(asciiView(m), "0.0s"))
	for _, k := range []string{"j", "down", "pgdown", "space", "k", "up", "pgup"} {
		if m, _ = step(m, press(k)); !versionsOpen(m) || !strings.Contains(plain(m), "Version 1/2") {
			t.Fatalf("%s scrolls the version shown; screen:\n%s", k, plain(m))
		}
	}
	m, _ = step(m, press("esc"))
	if m.focus != focusTranscript || strings.Contains(plain(m), "Version") || !strings.Contains(plain(m), "Green") {
		t.Fatalf("esc did not close the versions:\n%s", plain(m))
	}
}

func TestVersionsOfAReplyWithOnlyOne(t *testing.T) {
	t.Parallel()
	db := historytest.Open(t)
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

// followCmds runs cmd and the commands that the messages it gives lead to, a few rounds deep.
func followCmds(m Model, cmd tea.Cmd) Model {
	for range 4 {
		var next []tea.Cmd
		for _, msg := range execCmd(cmd, time.Second) {
			var c tea.Cmd
			m, c = step(m, msg)
			next = append(next, c)
		}
		if len(next) == 0 {
			break
		}
		cmd = tea.Batch(next...)
	}
	return m
}

func TestVersionsShowTheirTurnsCopyAndRestore(t *testing.T) {
	t.Parallel()
	db := historytest.Open(t)
	s := newSessionIn(t, db)
	q1 := storeExchange(t, db, s.ID, "Name a colour.", "Blue, the first answer.")
	storeExchange(t, db, s.ID, "Why that one?", "Because of the sky.")
	g, err := db.Regenerate(q1.AnchorID, "test-model", false)
	if err != nil {
		t.Fatal(err)
	}
	storeAnswer(t, db, g, "Green, the second answer.")
	m, _ := openOffline(t, db, s, 80, 30)
	m, _ = step(m, press("esc"))
	m = runCmds(step(m, press("[")))
	screen := plain(m)
	for _, want := range []string{"Version 1/2 · superseded, with the 2 messages after it", "Blue, the first answer.",
		"Why that one?", "Because of the sky.", "y copy · enter restore"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("the superseded version lacks %q:\n%s", want, screen)
		}
	}
	m, cmd := step(m, press("y"))
	if msgs := execCmd(cmd, time.Second); len(msgs) != 1 || fmt.Sprint(msgs[0]) != "Blue, the first answer." {
		t.Fatalf("y gave %v, want the version's text for the clipboard", msgs)
	}
	if !strings.Contains(plain(m), "version 1 handed to the terminal to copy (OSC 52) — tmux needs set-clipboard on") {
		t.Fatalf("no notice of the copy:\n%s", plain(m))
	}
	m = followCmds(step(m, press("enter")))
	if m.focus != focusInput || m.transcript.Len() != 4 || !strings.Contains(plain(m), "restored version 1") {
		t.Fatalf("enter did not restore the version:\n%s", plain(m))
	}
	live := liveMessages(t, db, s.ID)
	if len(live) != 4 || live[1].Content != "Blue, the first answer." || live[3].Content != "Because of the sky." {
		t.Fatalf("live after the restore: %+v", live)
	}
	// The version that gave way is a version now, and the live one cannot be restored.
	m = pressKeys(m, "esc", "k", "k")
	m = runCmds(step(m, press("]")))
	if s := plain(m); !strings.Contains(s, "Version 2/2 · superseded") || !strings.Contains(s, "Green") {
		t.Fatalf("the other version:\n%s", s)
	}
	m, _ = step(m, press("["))
	if _, cmd := step(m, press("enter")); cmd != nil || strings.Contains(plain(m), "enter restore") {
		t.Fatalf("the live version offers a restore:\n%s", plain(m))
	}
}
