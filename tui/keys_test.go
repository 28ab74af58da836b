package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/history/stored"
	"parley/internal/chat"
)

// The keys of the input and the transcript, driven through Update.

func TestEscMovesFocusAndSelectsNewestReply(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, storedExchanges(3), 80, 24)
	if m.focus != focusInput {
		t.Fatal("the input should have the focus at start")
	}
	m, _ = step(m, press("esc"))
	if m.focus != focusTranscript {
		t.Fatal("esc without a run should move the focus to the transcript")
	}
	if got := m.transcript.Selected(); got != 6 {
		t.Fatalf("selected %d, want the newest reply 6", got)
	}
	// Up and down move through every message, the operator's own too (to edit them).
	for _, k := range []string{"up", "k", "up", "k", "up"} {
		before := m.transcript.Selected()
		m, _ = step(m, press(k))
		if got := m.transcript.Selected(); got != before-1 {
			t.Fatalf("%s: selected %d, want the previous message %d", k, got, before-1)
		}
	}
	m, _ = step(m, press("k")) // already the first message: stays
	if got := m.transcript.Selected(); got != 1 {
		t.Fatalf("selected %d, want 1", got)
	}
	for range 4 {
		m, _ = step(m, press("j"))
	}
	m, _ = step(m, press("down"))
	if got := m.transcript.Selected(); got != 6 {
		t.Fatalf("selected %d, want 6", got)
	}
	if !strings.Contains(plain(m), "▌ Assistant") {
		t.Fatalf("the selected reply is not marked:\n%s", plain(m))
	}
	for _, k := range []string{"i", "tab", "enter"} {
		m, _ = step(m, press(k))
		if m.focus != focusInput || m.transcript.Selected() != 0 {
			t.Fatalf("%s should return to the input and clear the selection", k)
		}
		m, _ = step(m, press("esc"))
	}
}

func TestInputKeys(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, nil, 80, 24)
	m = typeText(m, "one")
	for i, k := range []string{"shift+enter", "alt+enter", "ctrl+j"} {
		m, _ = step(m, press(k))
		m = typeText(m, fmt.Sprint(i))
	}
	if got, want := m.input.Value(), "one\n0\n1\n2"; got != want {
		t.Fatalf("input %q, want %q", got, want)
	}
	// ? and ctrl+d are text or editing keys while the input holds text.
	m = typeText(m, "?")
	if helpOpen(m) || !strings.HasSuffix(m.input.Value(), "?") {
		t.Fatal("? should be typed into a non-empty input")
	}
	m, _ = step(m, press("home"))
	m, cmd := step(m, press("ctrl+d"))
	if msgs := execCmd(cmd, 100*time.Millisecond); len(msgs) > 0 {
		if _, quit := msgs[0].(tea.QuitMsg); quit {
			t.Fatal("ctrl+d quit with text in the input")
		}
	}
	// A large bracketed paste arrives whole.
	m.input.Reset()
	big := strings.Repeat("pasted line with some words\n", 3000)
	m, _ = step(m, tea.PasteMsg{Content: big})
	if m.input.Value() != big {
		t.Fatalf("paste kept %d of %d bytes", len(m.input.Value()), len(big))
	}
	if h := strings.Count(m.View().Content, "\n") + 1; h != 24 {
		t.Fatalf("screen is %d lines with a large input, want 24", h)
	}
}

func TestHelpToggle(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, nil, 100, 24)
	short := plain(m)
	if !strings.Contains(short, "enter send") || strings.Contains(short, "previous reply") {
		t.Fatalf("short help should list the input's keys only:\n%s", short)
	}
	m, _ = step(m, press("?"))
	if !helpOpen(m) || !m.input.Empty() {
		t.Fatal("? on an empty input should open the full help")
	}
	full := plain(m)
	for _, want := range []string{"newline", "scroll up", "follow"} {
		if !strings.Contains(full, want) {
			t.Fatalf("full help lacks %q:\n%s", want, full)
		}
	}
	if h := strings.Count(m.View().Content, "\n") + 1; h != 24 {
		t.Fatalf("screen is %d lines with the full help, want 24", h)
	}
}

func TestQuitKeys(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, nil, 80, 24)
	_, cmd := step(m, press("ctrl+c"))
	if !quits(cmd) {
		t.Fatal("ctrl+c without a run should quit")
	}
	_, cmd = step(m, press("ctrl+d"))
	if !quits(cmd) {
		t.Fatal("ctrl+d on an empty input should quit")
	}
	m = streamingModel(t, storedExchanges(1), 80, 24)
	m, cmd = step(m, press("ctrl+c"))
	if quits(cmd) || !m.active.cancelling {
		t.Fatal("ctrl+c during a run should cancel it, not quit")
	}
}

func TestPrintableKeyLeavesSelectModeWithIt(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, storedExchanges(2), 80, 24)
	m, _ = step(m, press("esc"))
	if !strings.Contains(plain(m), "SELECT — ↑↓ reply · r regenerate · y copy · [ ] versions · i/esc back to typing") {
		t.Fatalf("select mode is not shown:\n%s", plain(m))
	}
	m = typeText(m, "great, now")
	if m.focus != focusInput || m.input.Value() != "great, now" || m.transcript.Selected() != 0 {
		t.Fatalf("focus %v, input %q: g is no binding, so it and what follows are text", m.focus, m.input.Value())
	}
	if strings.Contains(plain(m), "SELECT") {
		t.Fatalf("still in select mode:\n%s", plain(m))
	}
	// esc and a key typed right after it reach parley as one alt+key in tmux: the key is text.
	m.input.Reset()
	m, _ = step(m, tea.KeyPressMsg{Code: 'g', Mod: tea.ModAlt})
	m = typeText(m, "reat")
	if m.focus != focusInput || m.input.Value() != "great" {
		t.Fatalf("alt+g then reat: focus %v, input %q", m.focus, m.input.Value())
	}
}

func TestFollowModeAndScrolling(t *testing.T) {
	t.Parallel()
	m := streamingModel(t, storedExchanges(20), 80, 20)
	m, _ = deliver(m, delta("first words"))
	m, _ = step(m, frameMsg{tag: m.active.tag})
	if !strings.Contains(plain(m), "first words") {
		t.Fatal("follow mode should show the streaming reply")
	}
	m, _ = step(m, press("pgup"))
	if m.transcript.Following() {
		t.Fatal("pgup should stop following")
	}
	before := plain(m)
	if strings.Contains(before, "first words") || !strings.Contains(before, "scrolled up") {
		t.Fatalf("pgup did not scroll away:\n%s", before)
	}
	m, _ = deliver(m, delta("\n\nmore and more\n\nand more"))
	m, _ = step(m, frameMsg{tag: m.active.tag})
	if plain(m) != before {
		t.Fatal("new text moved the window while scrolled up")
	}
	m, _ = step(m, tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	if plain(m) == before {
		t.Fatal("the mouse wheel did not scroll")
	}
	m, _ = step(m, press("home"))
	if !strings.Contains(plain(m), "question 1") {
		t.Fatalf("home should show the first message:\n%s", plain(m))
	}
	for range 50 {
		m, _ = step(m, press("pgdown"))
	}
	if !m.transcript.Following() || !strings.Contains(plain(m), "and more") {
		t.Fatal("scrolling to the bottom should follow again")
	}
	m = pressKeys(m, "pgup", "end")
	if !m.transcript.Following() {
		t.Fatal("end should follow")
	}
}

// Help names keys by their bindings: rebound, the full list, the SELECT bar and the notices
// name the new keys, and nothing names the old one.
func TestHelpNamesTheKeysBound(t *testing.T) {
	t.Parallel()
	msgs := storedExchanges(2)
	msgs[3].Status = chat.StatusInterrupted
	m := New(Options{Client: offlineClient(), Session: stored.Session{ID: "s1", Title: "test session"}})
	m.keys.Chat.Cancel = bind("select replies", "ctrl+g")
	m.keys.Transcript.Regenerate = bind("regenerate", "R")
	m.keys.Transcript.FocusInput = bind("back to typing", "a", "enter")
	m.keys.Versions.Close = bind("close", "x", "q")
	m, _ = step(m, tea.WindowSizeMsg{Width: 120, Height: 50})
	m, _ = step(m, sessionLoadedMsg{session: m.session, msgs: msgs})
	if s := plain(m); !strings.Contains(s, "interrupted — enter sends it again, ctrl+g dismisses") {
		t.Fatalf("the notice does not name the keys bound:\n%s", s)
	}
	m, _ = step(m, press("?"))
	full := plain(m)
	full = full[:strings.LastIndex(full, "\n")] // the help line names the overlay's own esc, which is bound
	for _, want := range []string{"selecting replies (ctrl+g)", "ctrl+g stop reply, or select replies", "a/ctrl+g back to typing", "x/q close"} {
		if !strings.Contains(full, want) {
			t.Errorf("the full help lacks %q:\n%s", want, full)
		}
	}
	if strings.Contains(full, "esc") {
		t.Errorf("the full help names esc, bound to nothing:\n%s", full)
	}
	m, _ = step(m, press("?"))
	m, _ = step(m, tea.KeyPressMsg{Code: 'g', Mod: tea.ModCtrl}) // dismisses the offer
	m, _ = step(m, tea.KeyPressMsg{Code: 'g', Mod: tea.ModCtrl})
	if s := plain(m); !strings.Contains(s, "R regenerate") || !strings.Contains(s, "a/ctrl+g back to typing") {
		t.Fatalf("the SELECT bar does not name the keys bound:\n%s", s)
	}
}
