package overlay

import (
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

type named string

func (n named) ID() string             { return string(n) }
func (named) Update(tea.Msg) Action    { return nil }
func (n named) View(int, int) []string { return []string{string(n)} }
func (named) Help() []key.Binding      { return nil }

// The last overlay pushed is in front; one removed from under it leaves it there.
func TestStackFront(t *testing.T) {
	var s Stack
	if s.Front() != nil {
		t.Fatal("an empty stack has an overlay in front")
	}
	s.Push(named("a"))
	s.Push(named("b"))
	s.Push(named("c"))
	s.Remove("b")
	if s.Front().ID() != "c" || s.Find("b") != nil || s.Find("a") == nil {
		t.Fatalf("after removing b: front %s, b found %v", s.Front().ID(), s.Find("b") != nil)
	}
	s.Pop()
	if s.Front().ID() != "a" {
		t.Fatalf("after pop: front %s", s.Front().ID())
	}
	s.Pop()
	s.Pop()
	if s.Front() != nil {
		t.Fatal("popped empty, something is in front")
	}
}
