package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/history/stored"
	"parley/internal/chat/chattest"
)

// A paste that arrives as keys (no bracketed paste): its enters are line ends, not sends.

// pasteGapModel is a model that tells pastes from typing by DefaultPasteGap, on a manual clock.
func pasteGapModel(t *testing.T) (Model, *chattest.Clock) {
	t.Helper()
	clk := chattest.New(clockStart)
	m := New(Options{Client: offlineClient(), Session: stored.Session{ID: "s1", Title: "test session"},
		Clock: clk, PasteGap: DefaultPasteGap})
	m, _ = step(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m, _ = step(m, sessionLoadedMsg{session: m.session, msgs: storedExchanges(1)})
	return m, clk
}

// keysApart sends text as key presses each every apart, "\r" as enter, the way a terminal
// without bracketed paste sends a paste (every ms) or a person types (every 100 ms or so).
func keysApart(m Model, clk *chattest.Clock, text string, every time.Duration) Model {
	for _, r := range text {
		clk.Advance(every)
		k := tea.KeyPressMsg{Code: r, Text: string(r)}
		if r == '\r' {
			k = press("enter")
		}
		m, _ = step(m, k)
	}
	return m
}

// afterGap lets the gap pass with no key, as the program's tick would say.
func afterGap(m Model, clk *chattest.Clock) Model {
	clk.Advance(DefaultPasteGap)
	m, _ = step(m, pasteTickMsg{tag: m.keyPaste.tag})
	return m
}

func TestKeysOfAPasteAreOnePaste(t *testing.T) {
	t.Parallel()
	m, clk := pasteGapModel(t)
	m = keysApart(m, clk, "first line\rsecond line\r\rfourth line", time.Millisecond)
	m = afterGap(m, clk)
	if m.waitingToSend() != 0 {
		t.Fatalf("%d messages sent from one paste", m.waitingToSend())
	}
	if got, want := m.input.Value(), "first line\nsecond line\n\nfourth line"; got != want {
		t.Fatalf("input %q, want %q", got, want)
	}
	// A paste of many lines is collapsed, as a bracketed one is.
	m, clk = pasteGapModel(t)
	m = keysApart(m, clk, "see:"+strings.Repeat("\rline of the paste", 40)+"\r", time.Millisecond)
	m = afterGap(m, clk)
	if m.waitingToSend() != 0 || !strings.Contains(plain(m), "[pasted 41 lines]") {
		t.Fatalf("the paste of 41 lines, %d sent:\n%s", m.waitingToSend(), plain(m))
	}
}

func TestTypedEnterSends(t *testing.T) {
	t.Parallel()
	// Typed: the enter sends at once.
	m, clk := pasteGapModel(t)
	m = keysApart(m, clk, "hello\r", 90*time.Millisecond)
	if m.waitingToSend() != 1 || !m.input.Empty() {
		t.Fatalf("a typed enter did not send: %d waiting, input %q", m.waitingToSend(), m.input.Value())
	}
	// A one-line paste ending in enter sends once the gap has passed with no key after it.
	m, clk = pasteGapModel(t)
	m = keysApart(m, clk, "one line\r", time.Millisecond)
	if m.waitingToSend() != 0 {
		t.Fatal("the enter right after a paste's keys sent before the gap passed")
	}
	m = afterGap(m, clk)
	if m.waitingToSend() != 1 || !m.input.Empty() {
		t.Fatalf("the enter did not send after the gap: %d waiting, input %q", m.waitingToSend(), m.input.Value())
	}
	// A key pressed after that enter, later than the gap, sends first and is typed after.
	m, clk = pasteGapModel(t)
	m = keysApart(m, clk, "one line\r", time.Millisecond)
	m = keysApart(m, clk, "x", 40*time.Millisecond)
	if m.waitingToSend() != 1 || m.input.Value() != "x" {
		t.Fatalf("%d waiting, input %q; want one sent and x typed", m.waitingToSend(), m.input.Value())
	}
}

func TestNoGapTakesEveryEnterAsTyped(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, nil, 100, 30)
	m = typeText(m, "one")
	m, _ = step(m, press("enter"))
	m = typeText(m, "two")
	if m.waitingToSend() != 1 || m.input.Value() != "two" {
		t.Fatalf("without a gap: %d waiting, input %q", m.waitingToSend(), m.input.Value())
	}
}
