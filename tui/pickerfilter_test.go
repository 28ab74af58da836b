package tui

import (
	"strings"
	"testing"

	"parley/history/historytest"
)

func TestTypingInThePickerSearchesTitlesAndMessages(t *testing.T) {
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
