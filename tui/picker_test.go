package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"parley/history"
	"parley/history/historytest"
)

// The session picker: searching titles and messages as one types, and with many sessions
// paging, deleting (asked first), renaming, the words that matched first, and opening a match
// at the message that matched.

func TestPickerPages(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, nil, 100, 24)
	var sessions []history.Session
	for i := range 400 {
		sessions = append(sessions, history.Session{ID: fmt.Sprintf("s%03d", i), Title: fmt.Sprintf("session %d", i)})
	}
	m, _ = step(m, sessionsMsg{sessions: sessions})
	m.picker.cursor = 0
	page := m.transcript.Height() - 3
	for _, k := range []struct {
		key  string
		want int
	}{{"pgdown", page}, {"pgdown", 2 * page}, {"pgup", page}, {"end", 399}, {"pgdown", 399}, {"home", 0}, {"pgup", 0}} {
		if m, _ = step(m, press(k.key)); m.picker.cursor != k.want {
			t.Fatalf("%s: cursor %d, want %d", k.key, m.picker.cursor, k.want)
		}
	}
	m, _ = step(m, press("end"))
	if !strings.Contains(plain(m), "› ") || !strings.Contains(plain(m), "session 399") {
		t.Fatalf("end does not show the last session:\n%s", plain(m))
	}
}

func TestPickerDeletesAfterAskingAndRenames(t *testing.T) {
	t.Parallel()
	db := historytest.Open(t)
	other := storedSession(t, db, "an old question", "an old answer")
	open := storedSession(t, db, "the open one", "its answer")
	m, _ := openOffline(t, db, open, 100, 24)
	m = runCmds(m, m.listSessions())
	m, _ = step(m, press("down")) // the other session, listed after the newer one
	if m.picker.shown()[m.picker.cursor].ID != other.ID {
		t.Fatalf("cursor on %s, want %s", m.picker.shown()[m.picker.cursor].ID, other.ID)
	}
	m = runCmds(step(m, press("ctrl+d")))
	if !strings.Contains(m.asked(), "ctrl+d again deletes “an old question” and its 2 messages") {
		t.Fatalf("ctrl+d did not ask first: %q", m.asked())
	}
	// Any other key forgets the question.
	m = runCmds(step(m, press("up")))
	m = runCmds(step(m, press("down")))
	m = runCmds(step(m, press("ctrl+d")))
	m = runCmds(step(m, press("ctrl+d")))
	list, _ := db.Sessions()
	if len(list) != 1 || list[0].ID != open.ID || len(m.picker.shown()) != 1 {
		t.Fatalf("after ctrl+d twice: %d stored, %d listed", len(list), len(m.picker.shown()))
	}
	if !strings.Contains(m.notice, "deleted “an old question”") {
		t.Fatalf("notice %q", m.notice)
	}
	// The open session is not deleted, and can be renamed.
	m = runCmds(step(m, press("ctrl+d")))
	if !strings.Contains(m.notice, "this is the open session") {
		t.Fatalf("ctrl+d on the open session: %q", m.notice)
	}
	m, _ = step(m, press("ctrl+r"))
	for range len("the open one") {
		m, _ = step(m, press("backspace"))
	}
	m = typeText(m, "quokka notes")
	if !strings.Contains(plain(m), "Rename: quokka notes") {
		t.Fatalf("the title typed is not shown:\n%s", plain(m))
	}
	m = runCmds(step(m, press("enter")))
	s, _ := db.Session(open.ID)
	if s.Title != "quokka notes" || m.session.Title != "quokka notes" || m.focus != focusPicker {
		t.Fatalf("renamed to %q, header %q, focus %v", s.Title, m.session.Title, m.focus)
	}
}

func TestPickerShowsTheMatchFirstAndOpensAtIt(t *testing.T) {
	t.Parallel()
	db := historytest.Open(t)
	long := storedSession(t, db, "a long conversation with a title that goes on and on and on", "first answer")
	for i := range 40 {
		text := fmt.Sprintf("answer %d, in a paragraph long enough to push the earlier messages off the screen", i)
		if i == 3 {
			text = strings.Repeat("words before it that say nothing much ", 4) + "quokkas live on Rottnest Island"
		}
		storeExchange(t, db, long.ID, fmt.Sprintf("question %d", i), text)
	}
	here := storedSession(t, db, "somewhere else", "nothing here")
	m, _ := openOffline(t, db, here, 80, 24)
	m = runCmds(m, m.listSessions())
	m = runCmds(typeQuery(m, "quokkas"))
	row := ""
	for _, l := range strings.Split(plain(m), "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "› ") {
			row = l
		}
	}
	if !strings.Contains(row, "quokkas live on Rottnest") || !strings.HasPrefix(row, "› …") {
		t.Fatalf("at 80 columns the match is not first in its row: %q\n%s", row, plain(m))
	}
	m = runCmds(step(m, press("enter")))
	sel := m.transcript.Selected()
	if m.session.ID != long.ID || !strings.Contains(m.transcript.Text(sel), "quokkas live") || !strings.Contains(plain(m), "quokkas live on Rottnest Island") {
		t.Fatalf("opened %s at %q:\n%s", m.session.ID, m.transcript.Text(sel), plain(m))
	}
}

// typeQuery types text into the open list's query, one key at a time, and returns the model
// and the search the last key asked for.
func typeQuery(m Model, text string) (Model, tea.Cmd) {
	var cmd tea.Cmd
	for _, r := range text {
		m, cmd = step(m, press(string(r)))
	}
	return m, cmd
}

func TestTypingInThePickerSearchesTitlesAndMessages(t *testing.T) {
	t.Parallel()
	db := historytest.Open(t)
	wild := storedSession(t, db, "Tell me about marsupials", "Quokkas live on Rottnest Island.")
	net := storedSession(t, db, "What is TCP slow start?", "It grows the window.")
	m, _ := openOffline(t, db, net, 120, 24)
	m = runCmds(m, m.listSessions())
	if m.focus != focusPicker || len(m.picker.shown()) != 2 {
		t.Fatalf("picker: focus %v, %d sessions", m.focus, len(m.picker.shown()))
	}

	// A word of a reply finds its session, with an excerpt; the title alone would not.
	for _, r := range "quokk" {
		m = runCmds(step(m, press(string(r))))
	}
	shown := m.picker.shown()
	if len(shown) != 1 || shown[0].ID != wild.ID || !strings.Contains(plain(m), "Quokkas live on Rottnest Island.") {
		t.Fatalf("\"quokk\" shows %+v:\n%s", shown, plain(m))
	}
	m = runCmds(step(m, press("enter")))
	// Opened from a search: the reply that matched is selected, and n finds the words again.
	if m.session.ID != wild.ID || m.focus != focusTranscript || !strings.Contains(m.transcript.Text(m.transcript.Selected()), "Quokkas") {
		t.Fatalf("enter opened %s (want %s), focus %v, selected %q", m.session.ID, wild.ID, m.focus, m.transcript.Text(m.transcript.Selected()))
	}
	m, _ = step(m, press("esc"))

	m = runCmds(m, m.listSessions())
	for _, r := range "slow st" {
		m = runCmds(step(m, press(string(r))))
	}
	if shown := m.picker.shown(); len(shown) != 1 || shown[0].ID != net.ID {
		t.Fatalf("\"slow st\" shows %+v", shown)
	}
	for range 7 {
		m = runCmds(step(m, press("backspace")))
	}
	if m.picker.query != "" || len(m.picker.shown()) != 2 {
		t.Fatalf("after deleting the query: %q, %d shown", m.picker.query, len(m.picker.shown()))
	}
	for _, r := range "zzz" {
		m = runCmds(step(m, press(string(r))))
	}
	if !strings.Contains(plain(m), "no session's title or messages hold zzz") {
		t.Fatalf("no match:\n%s", plain(m))
	}
	m = runCmds(step(m, press("enter")))
	if m.focus != focusPicker {
		t.Fatal("enter with nothing shown closed the picker")
	}
}
