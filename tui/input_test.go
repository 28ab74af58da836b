package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"parley/history/stored"
)

// The input box on the screen: long pastes, collapsed in the input and in the transcript. The
// box's own editing and wrapping are tested in tui/inputbox.

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

func TestLongPasteIsCollapsedInTheInputAndTheTranscript(t *testing.T) {
	t.Parallel()
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
	if m3.input.HoldsPastes() || m3.input.Value() != "see: "+big+" thanks" || strings.Count(m3.input.Value(), "\n") != 1299 {
		t.Fatal("ctrl+o should expand the paste into the text")
	}
	assertCursorAfter(t, m3, "them thanks")

	// Sent, it shows collapsed in the transcript too, and ctrl+o shows it in full.
	m, _ = step(m, press("enter"))
	if !m.input.Empty() {
		t.Fatal("enter did not send")
	}
	m, _ = step(m, postedMsg{out: outgoing{text: "see: " + big + " thanks"}, modelName: "test-model", session: m.session,
		rcpt: stored.Receipt{AnchorID: 1, RunID: 1, ReplyID: 2, Queued: true}})
	m.transcript.GotoTop()
	if s := plain(m); !strings.Contains(s, "see: [pasted 1,300 lines · ctrl+o expands] thanks") || strings.Contains(s, "line 0001") {
		t.Fatalf("the paste is not collapsed in the transcript:\n%s", s)
	}
	m, _ = step(m, press("ctrl+o"))
	m.transcript.GotoTop()
	if s := plain(m); !strings.Contains(s, "see: line 0001") || strings.Contains(s, "[pasted") {
		t.Fatalf("ctrl+o did not show the paste in full:\n%s", s)
	}
	m, _ = step(m, press("ctrl+o"))
	m.transcript.GotoTop()
	if !strings.Contains(plain(m), "[pasted 1,300 lines · ctrl+o expands]") {
		t.Fatal("a second ctrl+o did not collapse it again")
	}
	m, _ = step(m, press("?"))
	if !strings.Contains(plain(m), "ctrl+o") {
		t.Fatal("the full help does not list ctrl+o")
	}
}
