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
// without bracketed paste sends a paste (every ms) or a person types (every 100 ms or so). A
// tick asked for comes when it is due, as the program's would.
func keysApart(m Model, clk *chattest.Clock, text string, every time.Duration) Model {
	for _, r := range text {
		at := clk.Now().Add(every)
		for m.keyPaste.ticking && !m.keyPaste.due.After(at) {
			clk.Advance(m.keyPaste.due.Sub(clk.Now()))
			m = tickNow(m)
		}
		clk.Advance(at.Sub(clk.Now()))
		m, _ = step(m, pressOf(r))
	}
	return m
}

// keysQueued sends text as keys the loop reaches every apart while ticks wait behind them:
// keys read before the loop was held, queued ahead of the tick.
func keysQueued(m Model, clk *chattest.Clock, text string, every time.Duration) Model {
	for _, r := range text {
		clk.Advance(every)
		m, _ = step(m, pressOf(r))
	}
	return m
}

// pressOf is the key a terminal sends for r, "\r" as enter.
func pressOf(r rune) tea.KeyPressMsg {
	if r == '\r' {
		return press("enter")
	}
	return tea.KeyPressMsg{Code: r, Text: string(r)}
}

// tickNow handles the tick asked for last, now.
func tickNow(m Model) Model {
	m, _ = step(m, pasteTickMsg{tag: m.keyPaste.tag})
	return m
}

// afterGap lets the gap pass with no key: each tick asked for comes when due (at once if that
// is past), until none is asked for.
func afterGap(m Model, clk *chattest.Clock) Model {
	for i := 0; m.keyPaste.ticking && i < 10; i++ {
		if d := m.keyPaste.due.Sub(clk.Now()); d > 0 {
			clk.Advance(d)
		}
		m = tickNow(m)
	}
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
	// A key pressed after the gap has passed (its tick handled) is typed after the send.
	m, clk = pasteGapModel(t)
	m = keysApart(m, clk, "one line\r", time.Millisecond)
	m = afterGap(m, clk)
	m = keysApart(m, clk, "x", 40*time.Millisecond)
	if m.waitingToSend() != 1 || m.input.Value() != "x" {
		t.Fatalf("%d waiting, input %q; want one sent and x typed", m.waitingToSend(), m.input.Value())
	}
}

// A loaded machine holds the loop in the middle of a paste already read: the keys are then
// handled far apart, and the tick that ends the wait comes late. The paste stays one.
func TestPasteSurvivesAHeldLoop(t *testing.T) {
	t.Parallel()
	const held = 200 * time.Millisecond
	// Held between a line's last key and its enter, the tick queued behind them.
	m, clk := pasteGapModel(t)
	m = keysApart(m, clk, "please review these lines:\ralpha beta", time.Millisecond)
	clk.Advance(held)
	m = keysQueued(m, clk, "\rgamma delta", time.Millisecond)
	m = afterGap(m, clk)
	if m.waitingToSend() != 0 || m.input.Value() != "please review these lines:\nalpha beta\ngamma delta" {
		t.Fatalf("held before the tick: %d sent, input %q", m.waitingToSend(), m.input.Value())
	}
	// Held past the tick: the late tick asks once more, and the keys read meanwhile join.
	m, clk = pasteGapModel(t)
	m = keysApart(m, clk, "one line\r", time.Millisecond)
	clk.Advance(held)
	m = tickNow(m)
	if m.waitingToSend() != 0 || m.input.Value() != "one line" {
		t.Fatalf("a late tick ended the wait: %d sent, input %q", m.waitingToSend(), m.input.Value())
	}
	m = keysApart(m, clk, "two", time.Millisecond)
	clk.Advance(held) // held again: a key since, so it asks once more
	m = tickNow(m)
	m = keysApart(m, clk, "\rthree", time.Millisecond)
	m = afterGap(m, clk)
	if m.waitingToSend() != 0 || m.input.Value() != "one line\ntwo\nthree" {
		t.Fatalf("keys after a late tick: %d sent, input %q", m.waitingToSend(), m.input.Value())
	}
	// A late tick asks once: with no key since, the next one sends, however late.
	m, clk = pasteGapModel(t)
	m = keysApart(m, clk, "one line\r", time.Millisecond)
	clk.Advance(held)
	m = tickNow(m)
	clk.Advance(held)
	m = tickNow(m)
	if m.waitingToSend() != 1 || !m.input.Empty() {
		t.Fatalf("the wait did not end after a late tick asked once: %d sent, input %q", m.waitingToSend(), m.input.Value())
	}
}
