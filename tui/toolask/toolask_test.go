package toolask

import (
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"parley/internal/chat"
)

func question() *Question {
	stop := key.NewBinding(key.WithKeys("esc", "ctrl+c"), key.WithHelp("esc", "stop"))
	return New(chat.ToolCall{Arguments: `{"message":"hi"}`}, chat.ToolResult{Server: "everything", Tool: "echo"}, nil, DefaultKeys(stop), Styles{})
}

func typed(q *Question, text string) {
	for _, r := range text {
		if a := q.Update(tea.KeyPressMsg{Code: r, Text: string(r)}); a != nil {
			panic("typing answered")
		}
	}
}

// Nothing typed answers: letters (y, a and n among them) and enter alone leave the question
// waiting, and it says typing waits; → and enter answer once, ← from nothing refuses.
func TestOnlyAChosenAnswerConfirms(t *testing.T) {
	q := question()
	typed(q, "hey cat yan")
	if a := q.Update(tea.KeyPressMsg{Code: tea.KeyEnter}); a != nil {
		t.Fatalf("enter with nothing chosen answered %#v", a)
	}
	if v := strings.Join(q.View(120, 0), "\n"); !strings.Contains(v, "typing waits for this answer") || !strings.Contains(v, `run everything.echo {"message":"hi"}?`) {
		t.Errorf("the view:\n%s", v)
	}
	q.Update(tea.KeyPressMsg{Code: tea.KeyRight})
	if a := q.Update(tea.KeyPressMsg{Code: tea.KeyEnter}); a != (Answered{Choice: Once}) {
		t.Errorf("→ enter answered %#v, want once", a)
	}
	q = question()
	q.Update(tea.KeyPressMsg{Code: tea.KeyLeft})
	if a := q.Update(tea.KeyPressMsg{Code: tea.KeyEnter}); a != (Answered{Choice: Refuse}) {
		t.Errorf("← enter answered %#v, want refuse", a)
	}
	if a := q.Update(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}); a != (Stopped{}) {
		t.Errorf("ctrl+c: %#v, want stopped", a)
	}
}
