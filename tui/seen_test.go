package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/history/historytest"
	"parley/internal/chat"
)

// Two windows on one session: a turn stored by another process is shown before anything is
// sent after it.

// postedFrom runs cmd and returns the postedMsg among its messages.
func postedFrom(t *testing.T, cmd tea.Cmd) postedMsg {
	t.Helper()
	for _, msg := range execCmd(cmd, 5*time.Second) {
		if p, ok := msg.(postedMsg); ok {
			return p
		}
	}
	t.Fatal("no message was stored")
	return postedMsg{}
}

func TestAnotherWindowsTurnIsShownBeforeSending(t *testing.T) {
	t.Parallel()
	db := historytest.Open(t)
	s := storedSession(t, db, "first question", "first answer")
	m, _ := openOffline(t, db, s, 100, 30)
	storeExchange(t, historytest.Reopen(t, db), s.ID, "their question", "their answer")

	m = typeText(m, "my question")
	m, cmd := step(m, press("enter"))
	m, cmd = step(m, postedFrom(t, cmd))
	if got := m.input.Value(); got != "my question" || !strings.Contains(m.notice, "another parley added 2 messages") {
		t.Fatalf("input %q, notice %q; want the text back and why", got, m.notice)
	}
	if n := len(liveMessages(t, db, s.ID)); n != 4 {
		t.Fatalf("%d messages stored, want 4: mine is not stored before the others' are shown", n)
	}
	m = runCmds(m, cmd)
	if !strings.Contains(plain(m), "their question") {
		t.Fatalf("the other window's turn is not shown:\n%s", plain(m))
	}
	// Shown now, it is sent after them.
	m, cmd = step(m, press("enter"))
	if p := postedFrom(t, cmd); p.err != nil || p.rcpt.RunID == 0 {
		t.Fatalf("after the reread: %v", p.err)
	}
}

func TestAnotherWindowsTurnShowsWhenTheReplyEnds(t *testing.T) {
	t.Parallel()
	db := historytest.Open(t)
	s := storedSession(t, db, "first question", "first answer")
	m, _ := openOffline(t, db, s, 100, 30)
	rcpt, err := db.Post(s.ID, "being answered", "test-model", false)
	if err != nil {
		t.Fatal(err)
	}
	m, _ = step(m, postedMsg{out: outgoing{text: "being answered"}, modelName: "test-model", session: s, rcpt: rcpt})
	storeExchange(t, historytest.Reopen(t, db), s.ID, "their question", "their answer")

	m = typeText(m, "queued behind")
	m, cmd := step(m, press("enter"))
	m, _ = step(m, postedFrom(t, cmd))
	if m.input.Value() != "queued behind" || !strings.Contains(m.notice, "they show when this reply ends") || !m.rereadWhenIdle {
		t.Fatalf("input %q, notice %q", m.input.Value(), m.notice)
	}
	m, cmd = deliver(m, chat.Event{Kind: chat.EventFinished})
	m = runCmds(m, cmd)
	if !strings.Contains(plain(m), "their question") {
		t.Fatalf("the reply ended and the other window's turn is not shown:\n%s", plain(m))
	}
}
