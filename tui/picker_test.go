package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"parley/history"
	"parley/history/historytest"
	"parley/history/stored"
	"parley/tui/picker"
)

// The session picker: searching titles and messages as one types, and with many sessions
// paging, deleting (asked first), renaming, the words that matched first, and opening a match
// at the message that matched.

func TestPickerPages(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, nil, 100, 24)
	var sessions []stored.Session
	for i := range 400 {
		sessions = append(sessions, stored.Session{ID: fmt.Sprintf("s%03d", i), Title: fmt.Sprintf("session %d", i)})
	}
	m, _ = step(m, sessionsMsg{sessions: sessions})
	m, _ = step(m, press("home"))
	page := m.transcript.Height() - 3
	for _, k := range []struct {
		key  string
		want int
	}{{"pgdown", page}, {"pgdown", 2 * page}, {"pgup", page}, {"end", 399}, {"pgdown", 399}, {"home", 0}, {"pgup", 0}} {
		if m, _ = step(m, press(k.key)); shownPicker(m).Cursor() != k.want {
			t.Fatalf("%s: cursor %d, want %d", k.key, shownPicker(m).Cursor(), k.want)
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
	m := pickerOver(t, db, open, 100, 24)
	m, _ = step(m, press("down")) // the other session, listed after the newer one
	if shownPicker(m).Shown()[shownPicker(m).Cursor()].ID != other.ID {
		t.Fatalf("cursor on %s, want %s", shownPicker(m).Shown()[shownPicker(m).Cursor()].ID, other.ID)
	}
	m = runCmds(step(m, press("ctrl+d")))
	if !strings.Contains(m.overlays.asked(), "ctrl+d again deletes “an old question” and its 2 messages") {
		t.Fatalf("ctrl+d did not ask first: %q", m.overlays.asked())
	}
	// Any other key forgets the question.
	m = runCmds(step(m, press("up")))
	m = runCmds(step(m, press("down")))
	m = runCmds(step(m, press("ctrl+d")))
	m = runCmds(step(m, press("ctrl+d")))
	list, _ := db.Sessions()
	if len(list) != 1 || list[0].ID != open.ID || len(shownPicker(m).Shown()) != 1 {
		t.Fatalf("after ctrl+d twice: %d stored, %d listed", len(list), len(shownPicker(m).Shown()))
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
	if s.Title != "quokka notes" || m.session.Title != "quokka notes" || m.overlays.Find(picker.ID) == nil {
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
	m := pickerOver(t, db, here, 80, 24)
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

// pickerOver opens s offline at w×h with the session picker listing db's sessions over it.
func pickerOver(t testing.TB, db *history.DB, s stored.Session, w, h int) Model {
	t.Helper()
	m, _ := openOffline(t, db, s, w, h)
	return runCmds(m, m.listSessions())
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
	m := pickerOver(t, db, net, 120, 24)
	if m.overlays.Find(picker.ID) == nil || len(shownPicker(m).Shown()) != 2 {
		t.Fatalf("picker: focus %v, %d sessions", m.focus, len(shownPicker(m).Shown()))
	}

	// A word of a reply finds its session, with an excerpt; the title alone would not.
	for _, r := range "quokk" {
		m = runCmds(step(m, press(string(r))))
	}
	shown := shownPicker(m).Shown()
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
	if shown := shownPicker(m).Shown(); len(shown) != 1 || shown[0].ID != net.ID {
		t.Fatalf("\"slow st\" shows %+v", shown)
	}
	for range 7 {
		m = runCmds(step(m, press("backspace")))
	}
	if shownPicker(m).Query() != "" || len(shownPicker(m).Shown()) != 2 {
		t.Fatalf("after deleting the query: %q, %d shown", shownPicker(m).Query(), len(shownPicker(m).Shown()))
	}
	for _, r := range "zzz" {
		m = runCmds(step(m, press(string(r))))
	}
	if !strings.Contains(plain(m), "no session's title or messages hold zzz") {
		t.Fatalf("no match:\n%s", plain(m))
	}
	m = runCmds(step(m, press("enter")))
	if m.overlays.Find(picker.ID) == nil {
		t.Fatal("enter with nothing shown closed the picker")
	}
}
