package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
)

// This file owns the key bindings. Keys are matched with key.Matches against these very
// bindings, and every help text (the help line, the full list, the hints in titles and in
// the input's placeholder) is made from them, so what the help says is what the keys do.

// KeyMap holds parley's key bindings, one group per focus. Bindings that do nothing in the
// current state are disabled, so the help line shows only the keys that act now.
type KeyMap struct {
	Chat       ChatKeys       // the input and the transcript alike
	Input      InputKeys      // writing a message
	Transcript TranscriptKeys // selecting replies
	Picker     PickerKeys     // choosing a session
	Versions   VersionKeys    // reading the versions of a reply

	// focus is the focus the help line is for.
	focus focus
}

// ChatKeys act while the input or the transcript has the focus.
type ChatKeys struct {
	RetryNow  key.Binding // sends an armed Tier 2 retry at once
	Cancel    key.Binding // cancels the retry or the active run, else moves the focus
	Interrupt key.Binding // cancels the retry or the active run, else quits
	PageUp    key.Binding
	PageDown  key.Binding
	Top       key.Binding
	Bottom    key.Binding
	Help      key.Binding
	Pastes    key.Binding // expands the input's collapsed pastes, else shows the sent ones in full or not
}

// InputKeys act while the input has the focus. Top, Bottom, Help and RetryNow of ChatKeys act
// there only on an empty input: otherwise the key is text.
type InputKeys struct {
	Send    key.Binding
	Newline key.Binding // handled by the input box, which is given this binding
	Quit    key.Binding // on an empty input
}

// TranscriptKeys act while the transcript has the focus.
type TranscriptKeys struct {
	Up         key.Binding
	Down       key.Binding
	Copy       key.Binding
	Regenerate key.Binding
	Older      key.Binding // opens the version before the selected reply
	Newer      key.Binding // opens the version after it
	FocusInput key.Binding
}

// PickerKeys act while the session picker is open.
type PickerKeys struct {
	Up     key.Binding
	Down   key.Binding
	Choose key.Binding
	Close  key.Binding
}

// VersionKeys act while the version view is open.
type VersionKeys struct {
	Older      key.Binding
	Newer      key.Binding
	ScrollUp   key.Binding
	ScrollDown key.Binding
	PageUp     key.Binding
	PageDown   key.Binding
	Close      key.Binding
}

// DefaultKeyMap returns parley's bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Chat: ChatKeys{
			RetryNow:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "retry now")),
			Cancel:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "transcript")),
			Interrupt: key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
			PageUp:    key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "scroll up")),
			PageDown:  key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdown", "scroll down")),
			Top:       key.NewBinding(key.WithKeys("home"), key.WithHelp("home", "top")),
			Bottom:    key.NewBinding(key.WithKeys("end"), key.WithHelp("end", "follow")),
			Help:      key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "keys")),
			Pastes:    key.NewBinding(key.WithKeys("ctrl+o"), key.WithHelp("ctrl+o", "expand paste")),
		},
		Input: InputKeys{
			Send:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send")),
			Newline: key.NewBinding(key.WithKeys("shift+enter", "alt+enter", "ctrl+j"), key.WithHelp("shift+enter", "newline")),
			Quit:    key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "quit")),
		},
		Transcript: TranscriptKeys{
			Up:         key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous reply")),
			Down:       key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next reply")),
			Copy:       key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy reply")),
			Regenerate: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "regenerate")),
			Older:      key.NewBinding(key.WithKeys("["), key.WithHelp("[", "versions")),
			Newer:      key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "versions")),
			FocusInput: key.NewBinding(key.WithKeys("i", "tab", "enter"), key.WithHelp("i/tab", "type")),
		},
		Picker: PickerKeys{
			Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑", "choose")),
			Down:   key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓", "choose")),
			Choose: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open session")),
			Close:  key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc", "close")),
		},
		Versions: VersionKeys{
			Older:      key.NewBinding(key.WithKeys("["), key.WithHelp("[", "older")),
			Newer:      key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "newer")),
			ScrollUp:   key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑", "scroll")),
			ScrollDown: key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓", "scroll")),
			PageUp:     key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
			PageDown:   key.NewBinding(key.WithKeys("pgdown", "space"), key.WithHelp("pgdown", "page down")),
			Close:      key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc", "close")),
		},
	}
}

// ShortHelp returns the enabled bindings of the current focus that matter most, for the
// one-line help.
func (k KeyMap) ShortHelp() []key.Binding {
	c := k.Chat
	switch k.focus {
	case focusTranscript:
		t := k.Transcript
		return []key.Binding{c.RetryNow, t.Up, t.Down, t.Regenerate, t.Copy, t.FocusInput, c.Cancel, c.Interrupt, c.Help}
	case focusPicker:
		return []key.Binding{k.Picker.Choose, k.Picker.Close}
	case focusVersions:
		return []key.Binding{k.Versions.Close}
	}
	return []key.Binding{c.RetryNow, k.Input.Send, c.Pastes, c.Cancel, c.Interrupt, c.Help}
}

// FullHelp returns the bindings of the input and the transcript, grouped in columns, for the
// `?` view.
func (k KeyMap) FullHelp() [][]key.Binding {
	c, in, t := k.Chat, k.Input, k.Transcript
	return [][]key.Binding{
		{in.Send, in.Newline, c.Pastes, in.Quit, c.Help},
		{c.Cancel, c.Interrupt, c.PageUp, c.PageDown, c.Top, c.Bottom},
		{t.Up, t.Down, t.Regenerate, joined(t.Older, t.Newer), t.Copy, t.FocusInput},
	}
}

// fullKeys is the key map for the full list: every binding, named for every state.
func fullKeys() KeyMap {
	k := DefaultKeyMap()
	k.Chat.Cancel.SetHelp("esc", "stop reply / select")
	k.Chat.Interrupt.SetHelp("ctrl+c", "stop reply / quit")
	k.Chat.Pastes.SetHelp("ctrl+o", "expand pastes")
	return k
}

// joined is one help entry for bindings that share a description: their help keys joined by
// "/", enabled when any of them is.
func joined(bs ...key.Binding) key.Binding {
	var keys, names []string
	enabled := false
	for _, b := range bs {
		keys = append(keys, b.Keys()...)
		names = append(names, b.Help().Key)
		enabled = enabled || b.Enabled()
	}
	j := key.NewBinding(key.WithKeys(keys...), key.WithHelp(strings.Join(names, "/"), bs[0].Help().Desc))
	j.SetEnabled(enabled)
	return j
}

// relabel returns b described as desc, for a hint that words it more briefly.
func relabel(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}

// hint is a one-line reminder of bindings for a title: "key desc · key desc".
func hint(bs ...key.Binding) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = b.Help().Key + " " + b.Help().Desc
	}
	return strings.Join(parts, " · ")
}

// updateKeys enables the bindings that act in the current state and names what esc and
// ctrl+c do now.
func (m *Model) updateKeys() {
	k := &m.keys
	k.focus = m.focus
	trans := m.focus == focusTranscript
	selected := m.transcript.Selected() != 0
	k.Chat.RetryNow.SetEnabled(m.tier2.Armed() && (trans || m.input.Empty()))
	k.Input.Send.SetEnabled(!k.Chat.RetryNow.Enabled())
	k.Transcript.Copy.SetEnabled(selected)
	k.Transcript.Regenerate.SetEnabled(selected)
	k.Transcript.Older.SetEnabled(selected)
	k.Transcript.Newer.SetEnabled(selected)
	c := &k.Chat
	expand := !trans && m.input.HoldsPastes()
	c.Pastes.SetEnabled(expand || m.transcript.HasPastes())
	switch {
	case expand:
		c.Pastes.SetHelp("ctrl+o", "expand paste")
	case m.transcript.PastesShown():
		c.Pastes.SetHelp("ctrl+o", "collapse pastes")
	default:
		c.Pastes.SetHelp("ctrl+o", "show pastes")
	}
	switch {
	case m.tier2.Active():
		c.Cancel.SetHelp("esc", "cancel retry")
		c.Interrupt.SetHelp("ctrl+c", "cancel retry")
	case m.active != nil:
		c.Cancel.SetHelp("esc", "cancel reply")
		c.Interrupt.SetHelp("ctrl+c", "cancel reply")
	case trans:
		c.Cancel.SetHelp("esc", "back to input")
		c.Interrupt.SetHelp("ctrl+c", "quit")
	default:
		c.Cancel.SetHelp("esc", "select replies")
		c.Interrupt.SetHelp("ctrl+c", "quit")
	}
}
