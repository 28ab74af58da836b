package tui

import "charm.land/bubbles/v2/key"

// KeyMap lists parley's key bindings. Bindings that do not apply in the current state are
// disabled, so the help line shows only the keys that do something now.
type KeyMap struct {
	// Anywhere.
	Send      key.Binding
	RetryNow  key.Binding // enter on an empty input while a Tier 2 retry counts down
	Newline   key.Binding
	Cancel    key.Binding // esc: cancel the active run, else move focus to the transcript
	Interrupt key.Binding // ctrl+c: cancel the active run, else quit
	Quit      key.Binding // ctrl+d on an empty input
	PageUp    key.Binding
	PageDown  key.Binding
	Top       key.Binding
	Bottom    key.Binding
	Help      key.Binding

	// In the transcript.
	Up         key.Binding
	Down       key.Binding
	Copy       key.Binding
	Regenerate key.Binding
	Versions   key.Binding // [ and ]: the earlier and later versions of the selected reply
	Input      key.Binding

	// In the session picker.
	Choose key.Binding
	Close  key.Binding
}

// DefaultKeyMap returns parley's bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Send:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send")),
		RetryNow:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "retry now")),
		Newline:    key.NewBinding(key.WithKeys("shift+enter", "alt+enter", "ctrl+j"), key.WithHelp("shift+enter", "newline")),
		Cancel:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "transcript")),
		Interrupt:  key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		Quit:       key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "quit")),
		PageUp:     key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "scroll up")),
		PageDown:   key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdown", "scroll down")),
		Top:        key.NewBinding(key.WithKeys("home"), key.WithHelp("home", "top")),
		Bottom:     key.NewBinding(key.WithKeys("end"), key.WithHelp("end", "follow")),
		Help:       key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "keys")),
		Up:         key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous reply")),
		Down:       key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next reply")),
		Copy:       key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy reply")),
		Regenerate: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "regenerate")),
		Versions:   key.NewBinding(key.WithKeys("[", "]"), key.WithHelp("[/]", "versions")),
		Input:      key.NewBinding(key.WithKeys("i", "tab", "enter"), key.WithHelp("i/tab", "type")),
		Choose:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open session")),
		Close:      key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc", "close")),
	}
}

// ShortHelp returns the enabled bindings that matter most, for the one-line help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.RetryNow, k.Send, k.Choose, k.Up, k.Down, k.Regenerate, k.Copy, k.Input, k.Cancel, k.Close, k.Interrupt, k.Help}
}

// FullHelp returns every binding, grouped in columns, for the `?` view.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Send, k.Newline, k.Quit, k.Help},
		{k.Cancel, k.Interrupt, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Up, k.Down, k.Regenerate, k.Versions, k.Copy, k.Input},
	}
}

// fullKeys is the key map for the full list: every binding, named for every state.
func fullKeys() KeyMap {
	k := DefaultKeyMap()
	k.Cancel.SetHelp("esc", "stop reply / select")
	k.Interrupt.SetHelp("ctrl+c", "stop reply / quit")
	return k
}
