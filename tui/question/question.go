// Package question is what the chat screen asks before a key throws work away (a reply being
// written, queued messages, later turns): the key that asked, pressed again, confirms; any
// other key forgets the question and acts as it would.
package question

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"parley/internal/wrap"
	"parley/tui/overlay"
)

// ID names a question on the screen's stack of overlays.
const ID = "question"

// Question is one question, waiting for its key.
type Question struct {
	// Key is the key that confirms: the one that asked (set by the screen once it has
	// handled that key).
	Key string
	// Action is what the screen does once confirmed, in its own terms.
	Action any
	text   string
	style  lipgloss.Style
}

// New returns the question text, for action, drawn in style.
func New(text string, action any, style lipgloss.Style) *Question {
	return &Question{Action: action, text: text, style: style}
}

// Confirmed is the question's key pressed again: the key acts, confirmed.
type Confirmed struct{ Action any }

// Forgotten is any other key: the question is dropped and the key acts as it would.
type Forgotten struct{}

// ID is the question's name on the stack.
func (*Question) ID() string { return ID }

// Update answers every key: its own confirms, any other forgets.
func (q *Question) Update(msg tea.Msg) overlay.Action {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	if k.String() == q.Key {
		return Confirmed{Action: q.Action}
	}
	return Forgotten{}
}

// Text is the question as asked.
func (q *Question) Text() string { return q.text }

// View draws the question in the status line's place, wrapped to width.
func (q *Question) View(width, _ int) []string {
	lines := wrap.Lines(q.text, max(width, 1))
	for i, l := range lines {
		lines[i] = q.style.Render(l)
	}
	return lines
}

// Help is none: the question names its key.
func (*Question) Help() []key.Binding { return nil }
