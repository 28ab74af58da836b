package question

import (
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// The key that asked confirms, with the question's action; any other key forgets it.
func TestQuestionKeys(t *testing.T) {
	q := New("ctrl+c again quits", "quit", lipgloss.NewStyle())
	q.Key = "ctrl+c"
	if a, ok := q.Update(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}).(Confirmed); !ok || a.Action != "quit" {
		t.Errorf("ctrl+c again: %#v", q.Update(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}))
	}
	if _, ok := q.Update(tea.KeyPressMsg{Code: 'y', Text: "y"}).(Forgotten); !ok {
		t.Error("another key did not forget the question")
	}
	if q.Update(tea.WindowSizeMsg{}) != nil {
		t.Error("a message that is no key answered")
	}
}
