package inputbox

import (
	"fmt"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// The box: editing a large draft a line at a time, wrapping, the cursor. Each test drives a
// box built as the chat screen builds its own, with keys as the screen hands them on.

// newBox returns a focused box width columns wide, the prompt included.
func newBox(width int) Box {
	b := New(DefaultKeys(key.NewBinding(key.WithKeys("shift+enter", "alt+enter", "ctrl+j"))))
	b.Prompt = "┃ "
	b.Focus()
	b.SetWidth(width)
	return b
}

// press hands the box the key press that msg.String() reports as name.
func press(b Box, name string) Box {
	special := map[string]tea.Key{"up": {Code: tea.KeyUp}, "backspace": {Code: tea.KeyBackspace}}
	k, ok := special[name]
	if c, ctrl := strings.CutPrefix(name, "ctrl+"); !ok && ctrl {
		k = tea.Key{Code: rune(c[0]), Mod: tea.ModCtrl}
	}
	b, _ = b.Update(tea.KeyPressMsg(k))
	return b
}

// typeText types s into the box, one key per rune.
func typeText(b Box, s string) Box {
	for _, r := range s {
		b, _ = b.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return b
}

// bigDraft is n lines of text, about 95 bytes each, without a final newline.
func bigDraft(n int) string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %04d: the stream keeps every word the model sends, and the screen shows them", i+1)
	}
	return strings.Join(lines, "\n")
}

// cursorCell returns the box's row under the terminal cursor and the cursor's column in it.
func cursorCell(t *testing.T, b Box) ([]rune, int) {
	t.Helper()
	c := b.Cursor()
	if c == nil {
		t.Fatal("no cursor on screen")
	}
	rows := strings.Split(ansi.Strip(b.View()), "\n")
	if c.Y >= len(rows) {
		t.Fatalf("cursor on row %d of %d", c.Y, len(rows))
	}
	return []rune(rows[c.Y]), c.X
}

// assertCursorAfter checks that the cursor is drawn just after the text before, on its row.
func assertCursorAfter(t *testing.T, b Box, before string) {
	t.Helper()
	row, x := cursorCell(t, b)
	if x < len([]rune(before)) || x > len(row) || string(row[x-len([]rune(before)):x]) != before {
		t.Fatalf("cursor at column %d of %q, want it after %q", x, string(row), before)
	}
}

// wrapped counts the lines of the box that have been wrapped.
func wrapped(b Box) int {
	n := 0
	for _, l := range b.lines {
		if l.rows != nil {
			n++
		}
	}
	return n
}

func TestInputEditsALargeDraftALineAtATime(t *testing.T) {
	b := newBox(100)
	big := bigDraft(1300)
	b.SetValue(big)
	b = press(b, "up")
	b = press(b, "up")
	b = typeText(b, "X")
	b.View()
	lines := strings.Split(b.Value(), "\n")
	want := strings.Split(big, "\n")
	want[1297] += "X"
	if len(lines) != 1300 || strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the X did not land at the end of line 1298: %q", lines[1296:])
	}
	// Only the lines on screen and the first few (which tell the box's height) were wrapped,
	// not the 1,300.
	if n := wrapped(b); n > 2*MaxHeight {
		t.Fatalf("%d lines wrapped for one key", n)
	}
	assertCursorAfter(t, b, "shows themX")
	// Deleting and joining lines edit the same draft.
	b = press(b, "backspace")
	b = press(b, "ctrl+a")
	b = press(b, "backspace")
	got := b.Value()
	joined := strings.Join(want[:1297], "\n") + strings.TrimSuffix(want[1297], "X") + "\n" + strings.Join(want[1298:], "\n")
	if got != joined {
		t.Fatal("backspace at a line start did not join it to the line above")
	}
	assertCursorAfter(t, b, "shows them")
	b = press(b, "ctrl+k")
	if v := b.Value(); !strings.HasSuffix(v, "shows them\n"+want[1298]+"\n"+want[1299]) {
		t.Fatalf("ctrl+k did not cut the rest of the line: %q", v[len(v)-300:])
	}
	// The box shows at most MaxHeight rows.
	if h := strings.Count(b.View(), "\n") + 1; h != MaxHeight || b.Height() != MaxHeight {
		t.Fatalf("view of %d rows, box of %d rows", h, b.Height())
	}
}

func TestInputWrapsAndKeepsTheCursorOnItsText(t *testing.T) {
	b := newBox(40)
	sentence := "the stream keeps every word the model sends, the history stores them, and the screen shows them all"
	b = typeText(b, sentence)
	if b.Height() != 3 {
		t.Fatalf("a %d-character line in a 38-column box takes %d rows, want 3", len(sentence), b.Height())
	}
	assertCursorAfter(t, b, "shows them all")
	// Up keeps the column, on the row above.
	_, x := cursorCell(t, b)
	b = press(b, "up")
	_, x2 := cursorCell(t, b)
	b = typeText(b, "Z")
	if x2 != x || !strings.Contains(b.Value(), "Z") {
		t.Fatalf("up moved the cursor from column %d to %d", x, x2)
	}
	row, cx := cursorCell(t, b)
	if row[cx-1] != 'Z' {
		t.Fatalf("the cursor is not after the Z it typed: %q at %d", string(row), cx)
	}
	// Lines typed one after another, each wider than half the screen: the cursor stays on
	// the last one's end.
	b = newBox(120)
	for i := range 25 {
		if i > 0 {
			b = press(b, "ctrl+j")
		}
		b = typeText(b, fmt.Sprintf("line%02d %s", i+1, strings.Repeat(string(rune('a'+i)), 88)))
	}
	assertCursorAfter(t, b, "line25 "+strings.Repeat("y", 88))
	if n := len(strings.Split(b.Value(), "\n")); n != 25 {
		t.Fatalf("%d lines, want 25", n)
	}
}
