package filterlist

import (
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"parley/tui/overlay"
)

var keys = Keys{
	Up: key.NewBinding(key.WithKeys("up")), Down: key.NewBinding(key.WithKeys("down")),
	PageUp: key.NewBinding(key.WithKeys("pgup")), PageDown: key.NewBinding(key.WithKeys("pgdown")),
	Top: key.NewBinding(key.WithKeys("home")), Bottom: key.NewBinding(key.WithKeys("end")),
	Choose: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "choose")),
	Close:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close")),
}

// Typing narrows the list and puts the cursor at its top; enter chooses only what is shown,
// and the arrows and pages stay within it.
func TestKeysNarrowAndChoose(t *testing.T) {
	l := New([]string{"alpha", "beta", "gamma", "delta"}, func(s string) bool { return s == "gamma" })
	if c, _ := l.Current(); c != "gamma" {
		t.Fatalf("the cursor starts on %q, want the current item", c)
	}
	if l.Key(tea.KeyPressMsg{Code: tea.KeyPgDown}, keys, Page(5)) != Moved || l.Cursor != 3 {
		t.Errorf("pgdown: cursor %d, want the last", l.Cursor)
	}
	for _, r := range "ta" {
		if l.Key(tea.KeyPressMsg{Code: r, Text: string(r)}, keys, 1) != Typed {
			t.Fatalf("%q was not typed", r)
		}
		l.NarrowFold(func(s string) string { return s })
	}
	if strings.Join(l.Kept, ",") != "beta,delta" || l.Cursor != 0 {
		t.Errorf("after ta: %v, cursor %d", l.Kept, l.Cursor)
	}
	l.Key(tea.KeyPressMsg{Code: 'z', Text: "z"}, keys, 1)
	l.NarrowFold(func(s string) string { return s })
	if d := l.Key(tea.KeyPressMsg{Code: tea.KeyEnter}, keys, 1); d != Moved {
		t.Errorf("enter with nothing shown: %v, want nothing done", d)
	}
	if v := strings.Join(l.View(Styles{}, keys, 40, 5, Look{Title: "Things", None: "nothing holds "}, func(s string) string { return s }), "\n"); !strings.Contains(v, "nothing holds taz") {
		t.Errorf("the empty view:\n%s", v)
	}
	l.Key(tea.KeyPressMsg{Code: tea.KeyBackspace}, keys, 1)
	l.NarrowFold(func(s string) string { return s })
	if d := l.Key(tea.KeyPressMsg{Code: tea.KeyEnter}, keys, 1); d != Chose {
		t.Errorf("enter on beta: %v", d)
	}
	if d := l.Key(tea.KeyPressMsg{Code: tea.KeyEscape}, keys, 1); d != Closed {
		t.Errorf("esc: %v", d)
	}
}

// A page moves by the room the screen last gave the list: two rows of heading and one that
// stays in view come off it.
func TestAPageIsTheRoomGiven(t *testing.T) {
	items := make([]int, 30)
	l := New(items, func(int) bool { return false })
	pgdown := tea.KeyPressMsg{Code: tea.KeyPgDown}
	if d := l.Update(overlay.Size{Width: 80, Height: 10}, keys); d != Moved {
		t.Errorf("a size: %v, want nothing done", d)
	}
	l.Update(pgdown, keys)
	if l.Cursor != 7 {
		t.Errorf("pgdown in 10 lines: cursor %d, want 7", l.Cursor)
	}
	l.Update(overlay.Size{Width: 80, Height: 20}, keys)
	l.Update(pgdown, keys)
	if l.Cursor != 24 {
		t.Errorf("pgdown in 20 lines more: cursor %d, want 24", l.Cursor)
	}
}
