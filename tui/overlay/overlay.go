// Package overlay is what stands in front of the chat screen's conversation: a question, a
// list, a view. The overlay in front takes every key; the screen acts on the Action it
// returns, so no key meant for the draft reaches what an overlay asks.
package overlay

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Overlay is one part of the screen in front of the conversation.
type Overlay interface {
	// ID names the overlay on the stack.
	ID() string
	// Update handles a message (every key while the overlay is in front) and says what the
	// screen is to do about it; nil: nothing.
	Update(msg tea.Msg) Action
	// View draws the overlay width cells wide, in at most height lines (0: as many as it
	// needs).
	View(width, height int) []string
	// Help is the keys the overlay takes, for the help line.
	Help() []key.Binding
}

// Action is what an overlay asks of the screen: one of the overlay's own types, or Close.
type Action any

// Close takes the overlay in front off the stack.
type Close struct{}

// Stack holds the overlays in front of the conversation, the last one in front.
type Stack struct{ items []Overlay }

// Push puts o in front.
func (s *Stack) Push(o Overlay) { s.items = append(s.items, o) }

// Front is the overlay in front; nil when there is none.
func (s *Stack) Front() Overlay {
	if len(s.items) == 0 {
		return nil
	}
	return s.items[len(s.items)-1]
}

// Pop takes the overlay in front off the stack.
func (s *Stack) Pop() {
	if len(s.items) > 0 {
		s.items = s.items[:len(s.items)-1]
	}
}

// Remove takes the overlay named id off the stack, wherever it stands.
func (s *Stack) Remove(id string) {
	for i, o := range s.items {
		if o.ID() == id {
			s.items = append(s.items[:i:i], s.items[i+1:]...)
			return
		}
	}
}

// Find is the overlay named id on the stack; nil when it is not there.
func (s *Stack) Find(id string) Overlay {
	for _, o := range s.items {
		if o.ID() == id {
			return o
		}
	}
	return nil
}

// Size is the room the screen gives an overlay, sent to each on the stack when it changes.
type Size struct{ Width, Height int }

// Top is the overlay nearest the front that match reports; nil when none is.
func (s *Stack) Top(match func(Overlay) bool) Overlay {
	for i := len(s.items) - 1; i >= 0; i-- {
		if match(s.items[i]) {
			return s.items[i]
		}
	}
	return nil
}

// Each hands msg to every overlay on the stack, ignoring what they ask: for news that is not a
// key, such as their Size.
func (s *Stack) Each(msg tea.Msg) {
	for _, o := range s.items {
		o.Update(msg)
	}
}

// Pass takes the overlay in front off the stack and leaves the key to act as it would without
// it: typing goes on past an overlay that only shows.
type Pass struct{}
