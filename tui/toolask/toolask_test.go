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

// Spoken is the question in one line with every answer and its keys; Chosen follows the arrows.
func TestSpokenAndChosen(t *testing.T) {
	q := question()
	if got, want := q.Spoken(), `tool everything.echo {"message":"hi"} asks to run: run once, always for this tool, refuse; ←/→ choose, enter confirms, esc stops`; got != want {
		t.Errorf("spoken %q, want %q", got, want)
	}
	if got := q.Chosen(); got != "" {
		t.Errorf("chosen before any arrow: %q", got)
	}
	for _, c := range []struct{ key, want string }{{"right", "run once"}, {"right", "always for this tool"}, {"left", "run once"}, {"left", "refuse"}} {
		code := tea.KeyRight
		if c.key == "left" {
			code = tea.KeyLeft
		}
		q.Update(tea.KeyPressMsg{Code: code})
		if got := q.Chosen(); got != c.want {
			t.Errorf("after %s: chosen %q, want %q", c.key, got, c.want)
		}
	}
}
