package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"parley/history"
)

// The input box: editing a large draft a line at a time, wrapping, the cursor, long pastes.

// bigDraft is n lines of text, about 95 bytes each, without a final newline.
func bigDraft(n int) string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %04d: the stream keeps every word the model sends, and the screen shows them", i+1)
	}
	return strings.Join(lines, "\n")
}

// cursorCell returns the screen's row under the terminal cursor and the cursor's column in it.
func cursorCell(t *testing.T, m Model) ([]rune, int) {
	t.Helper()
	v := m.View()
	if v.Cursor == nil {
		t.Fatal("no cursor on screen")
	}
	rows := strings.Split(plain(m), "\n")
	if v.Cursor.Y >= len(rows) {
		t.Fatalf("cursor on row %d of %d", v.Cursor.Y, len(rows))
	}
	return []rune(rows[v.Cursor.Y]), v.Cursor.X
}

// assertCursorAfter checks that the cursor is drawn just after the text before, on its row.
func assertCursorAfter(t *testing.T, m Model, before string) {
	t.Helper()
	row, x := cursorCell(t, m)
	if x < len([]rune(before)) || x > len(row) || string(row[x-len([]rune(before)):x]) != before {
		t.Fatalf("cursor at column %d of %q, want it after %q", x, string(row), before)
	}
}

// wrapped counts the lines of the box that have been wrapped.
func wrapped(m Model) int {
	n := 0
	for _, l := range m.input.lines {
		if l.rows != nil {
			n++
		}
	}
	return n
}

func TestInputEditsALargeDraftALineAtATime(t *testing.T) {
	m := loadedModel(t, nil, 100, 30)
	big := bigDraft(1300)
	m.input.SetValue(big)
	m, _ = step(m, press("up"))
	m, _ = step(m, press("up"))
	m = typeText(m, "X")
	m.View()
	lines := strings.Split(m.input.Value(), "\n")
	want := strings.Split(big, "\n")
	want[1297] += "X"
	if len(lines) != 1300 || strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the X did not land at the end of line 1298: %q", lines[1296:])
	}
	// Only the lines on screen and the first few (which tell the box's height) were wrapped,
	// not the 1,300.
	if n := wrapped(m); n > 2*maxInputHeight {
		t.Fatalf("%d lines wrapped for one key", n)
	}
	assertCursorAfter(t, m, "shows themX")
	// Deleting and joining lines edit the same draft.
	m, _ = step(m, press("backspace"))
	m, _ = step(m, press("ctrl+a"))
	m, _ = step(m, press("backspace"))
	got := m.input.Value()
	joined := strings.Join(want[:1297], "\n") + strings.TrimSuffix(want[1297], "X") + "\n" + strings.Join(want[1298:], "\n")
	if got != joined {
		t.Fatal("backspace at a line start did not join it to the line above")
	}
	assertCursorAfter(t, m, "shows them")
	m, _ = step(m, press("ctrl+k"))
	if v := m.input.Value(); !strings.HasSuffix(v, "shows them\n"+want[1298]+"\n"+want[1299]) {
		t.Fatalf("ctrl+k did not cut the rest of the line: %q", v[len(v)-300:])
	}
	// The box shows at most maxInputHeight rows, and the screen keeps its height.
	if h := strings.Count(m.View().Content, "\n") + 1; h != 30 || m.input.Height() != maxInputHeight {
		t.Fatalf("screen of %d lines, box of %d rows", h, m.input.Height())
	}
}

func TestInputWrapsAndKeepsTheCursorOnItsText(t *testing.T) {
	m := loadedModel(t, nil, 40, 20)
	sentence := "the stream keeps every word the model sends, the history stores them, and the screen shows them all"
	m = typeText(m, sentence)
	if m.input.Height() != 3 {
		t.Fatalf("a %d-character line in a 38-column box takes %d rows, want 3", len(sentence), m.input.Height())
	}
	assertCursorAfter(t, m, "shows them all")
	// Up keeps the column, on the row above.
	_, x := cursorCell(t, m)
	m, _ = step(m, press("up"))
	_, x2 := cursorCell(t, m)
	m = typeText(m, "Z")
	if x2 != x || !strings.Contains(m.input.Value(), "Z") {
		t.Fatalf("up moved the cursor from column %d to %d", x, x2)
	}
	row, cx := cursorCell(t, m)
	if row[cx-1] != 'Z' {
		t.Fatalf("the cursor is not after the Z it typed: %q at %d", string(row), cx)
	}
	// Lines typed one after another, each wider than half the screen: the cursor stays on
	// the last one's end.
	m = loadedModel(t, nil, 120, 40)
	for i := range 25 {
		if i > 0 {
			m, _ = step(m, press("ctrl+j"))
		}
		m = typeText(m, fmt.Sprintf("line%02d %s", i+1, strings.Repeat(string(rune('a'+i)), 88)))
	}
	assertCursorAfter(t, m, "line25 "+strings.Repeat("y", 88))
	if n := len(strings.Split(m.input.Value(), "\n")); n != 25 {
		t.Fatalf("%d lines, want 25", n)
	}
}

func TestLongPasteIsCollapsedInTheInputAndTheTranscript(t *testing.T) {
	m := loadedModel(t, nil, 100, 30)
	big := bigDraft(1300)
	m = typeText(m, "see: ")
	m, _ = step(m, tea.PasteMsg{Content: big})
	m = typeText(m, " thanks")
	if s := plain(m); !strings.Contains(s, "see: [pasted 1,300 lines] thanks") || strings.Contains(s, "line 0001") {
		t.Fatalf("the paste is not collapsed in the input:\n%s", s)
	}
	if m.input.Value() != "see: "+big+" thanks" {
		t.Fatal("the collapsed paste is not kept whole")
	}
	assertCursorAfter(t, m, "lines] thanks")
	if !strings.Contains(plain(m), "ctrl+o expand paste") {
		t.Fatalf("the help does not say how to expand it:\n%s", plain(m))
	}
	// A short paste is text, and a long one can be made text to edit.
	m2 := loadedModel(t, nil, 100, 30)
	m2, _ = step(m2, tea.PasteMsg{Content: "two\nlines"})
	if m2.input.HoldsPastes() || m2.input.Value() != "two\nlines" {
		t.Fatal("a short paste should be inserted as text")
	}
	m3, _ := step(m, press("ctrl+o"))
	if m3.input.HoldsPastes() || m3.input.Value() != "see: "+big+" thanks" || len(m3.input.lines) != 1300 {
		t.Fatal("ctrl+o should expand the paste into the text")
	}
	assertCursorAfter(t, m3, "them thanks")

	// Sent, it shows collapsed in the transcript too, and ctrl+o shows it in full.
	m, _ = step(m, press("enter"))
	if !m.input.Empty() {
		t.Fatal("enter did not send")
	}
	m, _ = step(m, postedMsg{text: "see: " + big + " thanks", modelName: "test-model", session: m.session,
		rcpt: history.Receipt{AnchorID: 1, RunID: 1, ReplyID: 2, Queued: true}})
	m.transcript.GotoTop()
	if s := plain(m); !strings.Contains(s, "see: [pasted 1,300 lines] thanks") || strings.Contains(s, "line 0001") {
		t.Fatalf("the paste is not collapsed in the transcript:\n%s", s)
	}
	m, _ = step(m, press("ctrl+o"))
	m.transcript.GotoTop()
	if s := plain(m); !strings.Contains(s, "see: line 0001") || strings.Contains(s, "[pasted") {
		t.Fatalf("ctrl+o did not show the paste in full:\n%s", s)
	}
	m, _ = step(m, press("ctrl+o"))
	m.transcript.GotoTop()
	if !strings.Contains(plain(m), "[pasted 1,300 lines]") {
		t.Fatal("a second ctrl+o did not collapse it again")
	}
	m, _ = step(m, press("?"))
	if !strings.Contains(plain(m), "ctrl+o") {
		t.Fatal("the full help does not list ctrl+o")
	}
}

func TestPasteLabel(t *testing.T) {
	for text, want := range map[string]string{
		bigDraft(1300):               "[pasted 1,300 lines]",
		bigDraft(12) + "\n":          "[pasted 12 lines]",
		strings.Repeat("é", 12345):   "[pasted 12,345 characters]",
		strings.Repeat("x", 1234567): "[pasted 1,234,567 characters]",
	} {
		if got := pasteLabel(text); got != want {
			t.Errorf("label %q, want %q", got, want)
		}
	}
}
