package tui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"parley/tui/filterlist"
	"parley/tui/helpview"
	"parley/tui/keyhelp"
	"parley/tui/picker"
	"parley/tui/slashmenu"
	"parley/tui/versions"
)

// This file owns the key bindings. Keys are matched with key.Matches against these very
// bindings, and every help text (the help line, the full list, the hints in titles, notices
// and the input's placeholder) names keys by their bindings' help, so what the help says is
// what the keys do. Only the descriptions change with the state, never the keys named.

// KeyMap holds parley's key bindings, one group per focus. Bindings that do nothing in the
// current state are disabled, so the help line shows only the keys that act now.
type KeyMap struct {
	Chat       ChatKeys       // the input and the transcript alike
	Input      InputKeys      // writing a message
	Transcript TranscriptKeys // selecting replies
	Picker     picker.Keys    // choosing a session
	Versions   versions.Keys  // reading the versions of a reply
	HelpList   helpview.Keys  // reading the list of every key
}

// ChatKeys act while the input or the transcript has the focus.
type ChatKeys struct {
	RetryNow   key.Binding // sends an armed Tier 2 retry at once
	SendQueued key.Binding // sends the next of the messages esc held back
	Fallback   key.Binding // sends the armed retry to the fallback endpoint instead
	Cancel     key.Binding // cancels the retry or the active run, else moves the focus
	Interrupt  key.Binding // cancels the retry or the active run, else clears the draft, else quits
	PageUp     key.Binding
	PageDown   key.Binding
	Top        key.Binding
	Bottom     key.Binding
	Help       key.Binding
	Pastes     key.Binding // expands the input's collapsed pastes, else shows a sent message in full or not
	Mouse      key.Binding // captures the mouse, or gives it back to the terminal
	Continue   key.Binding // continues the reply an armed Tier 2 retry would regenerate
}

// InputKeys act while the input has the focus. Top, Bottom, Help and RetryNow of ChatKeys act
// there only on an empty input: otherwise the key is text.
type InputKeys struct {
	Send    key.Binding
	Newline key.Binding // handled by the input box, which is given this binding
	Quit    key.Binding // on an empty input
	Editor  key.Binding // opens the input in $VISUAL or $EDITOR
	Image   key.Binding // attaches the image on the system clipboard
	Older   key.Binding // on an empty input, or one showing an earlier message: the one before it; ↑ too while showing one
	Newer   key.Binding // while showing an earlier message: the one after it
	// ScrollUp and ScrollDown scroll the transcript on an empty input: a terminal's wheel
	// arrives as these arrows while the mouse is not captured (alternate scroll).
	ScrollUp   key.Binding
	ScrollDown key.Binding
	// Complete, MenuUp and MenuDown act while a line that starts with / shows the menu of
	// commands (tui/slashmenu): the arrows choose one, Complete puts it in the input.
	Complete key.Binding
	MenuUp   key.Binding
	MenuDown key.Binding
}

// TranscriptKeys act while the transcript has the focus.
type TranscriptKeys struct {
	Up         key.Binding
	Down       key.Binding
	Copy       key.Binding
	CopyCode   key.Binding // copies one code block of the reply, the next on each press
	Regenerate key.Binding
	Thinking   key.Binding // expands or collapses the selected reply's thinking
	Fallback   key.Binding // sends the armed retry to the fallback endpoint instead
	Older      key.Binding // opens the version before the selected reply
	Newer      key.Binding // opens the version after it
	Edit       key.Binding // puts the selected operator message in the input, to send in its place
	Continue   key.Binding // goes on from where the selected reply was cut
	Seams      key.Binding // hides or shows where continued replies were joined
	Fork       key.Binding // makes a new session holding the conversation up to the selected message
	Compare    key.Binding // runs the selected reply again on another model or profile
	Pin        key.Binding // pins the selected message, so compaction never leaves it out; again unpins
	FocusInput key.Binding
	// Find asks for a text to find in the session's messages (chatkeys.go); FindNext and FindPrev
	// find it again in earlier and later messages.
	Find, FindNext, FindPrev key.Binding
}

// ListKeys move through a list drawn in the transcript's place (the session picker, /model's
// and /tools' lists, the list of every key): a line, a page, or to either end.
type ListKeys struct {
	Up, Down         key.Binding
	PageUp, PageDown key.Binding
	Top, Bottom      key.Binding
}

// DefaultKeyMap returns parley's bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Chat: ChatKeys{
			RetryNow:   bind("retry now", "enter"),
			SendQueued: bind("send the next queued", "enter"),
			Fallback:   bind("send to fallback", "ctrl+f"),
			Cancel:     bind("transcript", "esc"),
			Interrupt:  bind("quit", "ctrl+c"),
			PageUp:     bind("scroll up", "pgup"),
			PageDown:   bind("scroll down", "pgdown"),
			Top:        bind("top", "home"),
			Bottom:     bind("follow", "end"),
			Help:       bind("keys", "?"),
			Pastes:     bind("expand paste", "ctrl+o"),
			Mouse:      bind("capture mouse", "ctrl+t"),
			Continue:   bind("continue", "c"),
		},
		Input: InputKeys{
			Send:       bind("send", "enter"),
			Newline:    bind("newline", "shift+enter", "alt+enter", "ctrl+j"),
			Quit:       bind("quit", "ctrl+d"),
			Editor:     bind("$EDITOR", "ctrl+x"),
			Image:      bind("paste an image", "ctrl+v"),
			Older:      bind("earlier message", "ctrl+p"),
			Newer:      bind("later message", "ctrl+n"),
			ScrollUp:   key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "scroll")),
			ScrollDown: key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "scroll")),
			Complete:   bind("complete a /command", "tab"),
			MenuUp:     key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "choose")),
			MenuDown:   key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "choose")),
		},
		Transcript: TranscriptKeys{
			Up:         key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous message")),
			Down:       key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next message")),
			Copy:       bind("copy", "y"),
			CopyCode:   bind("copy a code block", "Y"),
			Regenerate: bind("regenerate", "r"),
			Thinking:   bind("show thinking, tool calls", "t"),
			Fallback:   bind("send to fallback", "f"),
			Older:      bind("versions", "["),
			Newer:      bind("versions", "]"),
			Edit:       bind("edit & resend", "e"),
			Continue:   bind("continue from the cut", "c"),
			Seams:      bind("hide seams", "s"),
			Fork:       bind("fork from here", "F"),
			Compare:    bind("run again on another model", "R"),
			Pin:        bind("pin", "p"),
			FocusInput: bind("back to typing", "i", "tab", "enter"),
			Find:       bind("find", "/"),
			FindNext:   bind("find earlier", "n"),
			FindPrev:   bind("find later", "N"),
		},
		Picker: picker.Keys{
			// Letters are the search typed in the list, so only arrows move.
			Keys:   listChooseKeys(listKeys("choose", "first", "last"), bind("open session", "enter"), bind("close", "esc")),
			Delete: bind("delete", "ctrl+d", "delete"),
			Rename: bind("rename", "ctrl+r"),
		},
		HelpList: helpListKeys(listKeys("scroll", "top", "end"), bind("close", "esc", "?")),
		Versions: versions.Keys{
			Older:      bind("older", "["),
			Newer:      bind("newer", "]"),
			Copy:       bind("copy", "y"),
			Restore:    bind("restore", "enter"),
			ScrollUp:   key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑", "scroll")),
			ScrollDown: key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓", "scroll")),
			PageUp:     bind("page up", "pgup"),
			PageDown:   bind("page down", "pgdown", "space"),
			Close:      bind("close", "esc", "q"),
		},
	}
}

// listKeys returns a list's arrows, paging keys and ends: line says what an arrow does there,
// top and bottom what home and end do.
func listKeys(line, top, bottom string) ListKeys {
	return ListKeys{
		Up:       key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", line)),
		Down:     key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", line)),
		PageUp:   bind("page", "pgup"),
		PageDown: bind("page", "pgdown"),
		Top:      bind(top, "home"),
		Bottom:   bind(bottom, "end"),
	}
}

// helpListKeys are the keys of the list of every key: l's, and close.
func helpListKeys(l ListKeys, close key.Binding) helpview.Keys {
	return helpview.Keys{Up: l.Up, Down: l.Down, PageUp: l.PageUp, PageDown: l.PageDown, Top: l.Top, Bottom: l.Bottom, Close: close}
}

// HelpKeys returns every binding as the ? view names it, grouped by focus: what a test of
// the screen a terminal shows looks for on it.
func HelpKeys() [][]key.Binding { return fullKeys(DefaultKeyMap()).FullHelp() }

// listChooseKeys are the keys of a list the operator chooses from: l's, choose and close.
func listChooseKeys(l ListKeys, choose, close key.Binding) filterlist.Keys {
	return filterlist.Keys{Up: l.Up, Down: l.Down, PageUp: l.PageUp, PageDown: l.PageDown, Top: l.Top, Bottom: l.Bottom,
		Choose: choose, Close: close}
}

// bind binds keys to what desc says, shown in help under the first of them. Arrows show as
// glyphs (↑, ↓/j), so their bindings are spelled out in full.
func bind(desc string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(keys[0], desc))
}

// ShortHelp returns the enabled bindings that matter most, for the help line. Selecting
// replies shows selectBar instead, and an overlay its own keys.
func (k KeyMap) ShortHelp() []key.Binding {
	c := k.Chat
	return []key.Binding{c.RetryNow, c.SendQueued, k.Input.Send, c.Pastes, c.Cancel, c.Interrupt, c.Help}
}

// sections returns every binding of the input, the transcript and the versions, by focus.
func (k KeyMap) sections() []helpview.Section {
	c, in, t, v := k.Chat, k.Input, k.Transcript, k.Versions
	return []helpview.Section{
		{Title: "typing", Bindings: []key.Binding{in.Send, in.Newline, in.Editor, in.Image, c.Pastes, keyhelp.Joined(in.Older, in.Newer), keyhelp.Joined(in.ScrollUp, in.ScrollDown), in.Complete,
			c.Cancel, c.Interrupt, in.Quit, c.Fallback, c.PageUp, c.PageDown, c.Top, c.Bottom, c.Mouse, c.Help}},
		{Title: "selecting replies (" + c.Cancel.Help().Key + ")", Bindings: []key.Binding{keyhelp.Joined(t.Up, t.Down), t.Regenerate, t.Compare, t.Continue, t.Seams, t.Fork, t.Edit, t.Thinking, t.Fallback, keyhelp.Joined(t.Older, t.Newer),
			t.Copy, t.CopyCode, t.Pin, t.Find, keyhelp.Relabel(keyhelp.Joined(t.FindNext, t.FindPrev), "find again, earlier / later"), t.FocusInput}},
		{Title: "versions (" + t.Older.Help().Key + " or " + t.Newer.Help().Key + ")", Bindings: []key.Binding{keyhelp.Joined(v.Older, v.Newer), keyhelp.Joined(v.ScrollUp, v.ScrollDown), v.Copy, v.Restore, v.Close}},
	}
}

// FullHelp returns every binding, grouped by focus, for the `?` view.
func (k KeyMap) FullHelp() [][]key.Binding {
	var groups [][]key.Binding
	for _, s := range k.sections() {
		groups = append(groups, s.Bindings)
	}
	return groups
}

// fullKeys returns k as the full list shows it: every binding, named for every state.
func fullKeys(k KeyMap) KeyMap {
	c, in, t, v := &k.Chat, &k.Input, &k.Transcript, &k.Versions
	c.Cancel = keyhelp.Relabel(c.Cancel, "stop reply, or select replies")
	c.Interrupt = keyhelp.Relabel(c.Interrupt, "stop reply, clear draft, or quit")
	c.Top = keyhelp.Relabel(c.Top, "top (draft: line start)")
	c.Bottom = keyhelp.Relabel(c.Bottom, "follow (draft: line end)")
	in.Older = keyhelp.Relabel(in.Older, "earlier messages")
	in.ScrollUp = keyhelp.Relabel(in.ScrollUp, "scroll (empty input)")
	in.Quit = keyhelp.Relabel(in.Quit, "quit (empty input)")
	t.Pin = keyhelp.Relabel(t.Pin, "pin or unpin")
	t.Up = keyhelp.Relabel(t.Up, "reply")
	t.Down = keyhelp.Relabel(t.Down, "reply")
	// Every key back to typing but those that retry first while a retry counts down, and the
	// cancel key, which goes back from selecting too.
	back := slices.DeleteFunc(slices.Clone(t.FocusInput.Keys()), func(k string) bool { return slices.Contains(c.RetryNow.Keys(), k) })
	t.FocusInput.SetHelp(strings.Join(append(back, c.Cancel.Help().Key), "/"), t.FocusInput.Help().Desc)
	v.Older = keyhelp.Relabel(v.Older, "older / newer")
	v.Close.SetHelp(strings.Join(v.Close.Keys(), "/"), v.Close.Help().Desc)
	c.Pastes = keyhelp.Relabel(c.Pastes, "expand pastes")
	return k
}

// selectBar is the line shown while replies are being selected, so that the mode cannot be
// missed: what each key does there, and the way back to typing.
func (k KeyMap) selectBar() string {
	t := k.Transcript
	parts := []string{firstKey(t.Up) + firstKey(t.Down) + " reply"}
	for _, b := range []key.Binding{t.Regenerate, keyhelp.Relabel(t.Continue, "continue"), keyhelp.Relabel(t.Copy, "copy")} {
		if b.Enabled() {
			parts = append(parts, b.Help().Key+" "+b.Help().Desc)
		}
	}
	if t.Older.Enabled() {
		parts = append(parts, t.Older.Help().Key+" "+t.Newer.Help().Key+" versions")
	}
	if k.Chat.RetryNow.Enabled() {
		parts = append(parts, keyhelp.Hint(k.Chat.RetryNow))
	}
	parts = append(parts, t.FocusInput.Help().Key+"/"+k.Chat.Cancel.Help().Key+" "+t.FocusInput.Help().Desc)
	return "SELECT — " + strings.Join(parts, " · ")
}

// pressed reports whether msg is one of b's keys, whether b is enabled or not: for a key that
// says why it does nothing now.
func pressed(msg tea.KeyPressMsg, b key.Binding) bool { return slices.Contains(b.Keys(), msg.String()) }

// firstKey is the first of the keys b's help names: "↑" of "↑/k".
func firstKey(b key.Binding) string {
	k, _, _ := strings.Cut(b.Help().Key, "/")
	return k
}

// This part enables the bindings of keys.go that act in the current state and names what the
// keys whose meaning changes (esc, ctrl+c, ctrl+o, ctrl+t) do now: help and the keys
// themselves read the same bindings.

// updateKeys enables the bindings that act in the current state and names what esc and
// ctrl+c do now.
func (m *Model) updateKeys() {
	k := &m.keys
	trans := m.focus == focusTranscript
	empty := m.input.Empty()
	selected := m.transcript.Selected() != 0
	k.Chat.RetryNow.SetEnabled(m.tier2.Armed() && (trans || empty))
	k.Chat.SendQueued.SetEnabled(m.held && !trans && empty)
	k.Input.Send.SetEnabled(!k.Chat.RetryNow.Enabled() && !k.Chat.SendQueued.Enabled())
	walking := m.walking(&m.input)
	k.Input.Older.SetEnabled(walking)
	k.Input.Newer.SetEnabled(m.recall.at >= 0 && walking)
	// While an earlier message is shown, the arrows walk on from it; else they scroll.
	shown := m.recall.at >= 0 && walking && !empty
	k.Input.Older.SetKeys(keysIf(shown, "ctrl+p", "up")...)
	k.Input.Newer.SetKeys(keysIf(shown, "ctrl+n", "down")...)
	k.Input.ScrollUp.SetEnabled(empty && !trans)
	k.Input.ScrollDown.SetEnabled(empty && !trans)
	menu := m.syncMenu()
	if m.mouse {
		c := &k.Chat
		c.Mouse = keyhelp.Relabel(c.Mouse, "free mouse")
	} else {
		k.Chat.Mouse = keyhelp.Relabel(k.Chat.Mouse, "capture mouse")
	}
	k.Transcript.Copy.SetEnabled(selected)
	k.Transcript.CopyCode.SetEnabled(selected)
	k.Transcript.Regenerate.SetEnabled(selected)
	k.Transcript.Continue.SetEnabled(selected && m.transcript.Continuable(m.transcript.Selected()))
	k.Transcript.Seams.SetEnabled(m.transcript.HasSeams())
	k.Transcript.Fork.SetEnabled(selected)
	k.Transcript.Compare.SetEnabled(selected)
	if m.transcript.SeamsShown() {
		k.Transcript.Seams = keyhelp.Relabel(k.Transcript.Seams, "hide seams")
	} else {
		k.Transcript.Seams = keyhelp.Relabel(k.Transcript.Seams, "show seams")
	}
	k.Chat.Continue.SetEnabled((trans || empty) && cutReply(m.transcript, &m.tier2) != 0)
	k.Transcript.Thinking.SetEnabled(selected)
	k.Transcript.Fallback.SetEnabled(m.fallbackOffered(&m.tier2))
	k.Chat.Fallback.SetEnabled(m.fallbackOffered(&m.tier2))
	k.Transcript.Older.SetEnabled(selected)
	k.Transcript.Newer.SetEnabled(selected)
	k.Transcript.Edit.SetEnabled(m.transcript.IsOperator(m.transcript.Selected()))
	k.Transcript.Pin.SetEnabled(selected)
	if msg, _ := m.transcript.Message(m.transcript.Selected()); msg.Pinned {
		k.Transcript.Pin = keyhelp.Relabel(k.Transcript.Pin, "unpin")
	} else {
		k.Transcript.Pin = keyhelp.Relabel(k.Transcript.Pin, "pin")
	}
	k.Transcript.FindNext.SetEnabled(m.finding.query != "")
	k.Transcript.FindPrev.SetEnabled(m.finding.query != "")
	c := &k.Chat
	expand := !trans && m.input.HoldsPastes()
	c.Pastes.SetEnabled(expand || m.transcript.HasPastes())
	switch {
	case expand:
		c.Pastes = keyhelp.Relabel(c.Pastes, "expand paste")
	case m.transcript.PastesShown():
		c.Pastes = keyhelp.Relabel(c.Pastes, "collapse paste")
	default:
		c.Pastes = keyhelp.Relabel(c.Pastes, "show paste")
	}
	switch {
	case m.next.edit != 0 && !trans:
		c.Cancel = keyhelp.Relabel(c.Cancel, "abandon edit")
		c.Interrupt = keyhelp.Relabel(c.Interrupt, "quit")
	case m.active != nil && m.active.gotOutput:
		// A retry whose reply has begun is a reply being written: esc stops that.
		c.Cancel = keyhelp.Relabel(c.Cancel, "cancel reply")
		c.Interrupt = keyhelp.Relabel(c.Interrupt, "cancel reply")
	case m.tier2.Active():
		c.Cancel = keyhelp.Relabel(c.Cancel, "cancel retry")
		c.Interrupt = keyhelp.Relabel(c.Interrupt, "cancel retry")
	case m.active != nil:
		c.Cancel = keyhelp.Relabel(c.Cancel, "cancel reply")
		c.Interrupt = keyhelp.Relabel(c.Interrupt, "cancel reply")
	case trans:
		c.Cancel = keyhelp.Relabel(c.Cancel, "back to typing")
	case menu:
		c.Cancel = keyhelp.Relabel(c.Cancel, "close the menu")
	default:
		c.Cancel = keyhelp.Relabel(c.Cancel, "select replies")
	}
	if !m.tier2.Active() && m.active == nil {
		if empty {
			c.Interrupt = keyhelp.Relabel(c.Interrupt, "quit")
		} else {
			c.Interrupt = keyhelp.Relabel(c.Interrupt, "clear draft")
		}
	}
}

// syncMenu keeps the slash menu (tui/slashmenu) on the stack while the input has the focus
// and holds one short line starting with a single slash, and enables its keys while it shows;
// it reports whether it shows. A line recalled from the history is walked, not completed. It
// comes in front only when nothing else is: it waits behind a question or a list.
func (m *Model) syncMenu() bool {
	menu, _ := m.overlays.Find(slashmenu.ID).(*slashmenu.Menu)
	line, short := m.input.Short(slashmenu.Width)
	if menu != nil && (m.input.Empty() || (short && !strings.HasPrefix(line, "/"))) {
		m.overlays.Remove(slashmenu.ID) // a menu closed with esc opens again from here
		menu = nil
	}
	if !short || m.focus != focusInput || m.recall.at >= 0 {
		line = ""
	}
	if menu == nil && slashmenu.Offers(line) && m.overlays.Front() == nil {
		menu = slashmenu.New(menuCommands(), slashmenu.Styles{Chosen: m.styles.PickerFocus, Muted: m.styles.Muted})
		m.overlays.Push(menu)
	}
	open := menu != nil && menu.SetLine(line)
	in := &m.keys.Input
	in.Complete.SetEnabled(open)
	in.MenuUp.SetEnabled(open)
	in.MenuDown.SetEnabled(open)
	if menu != nil {
		menu.SetKeys(slashmenu.Keys{Up: in.MenuUp, Down: in.MenuDown, Complete: in.Complete, Send: in.Send, Close: m.keys.Chat.Cancel})
	}
	return open
}

// keysIf is key, and also more when with is set.
func keysIf(with bool, key string, more ...string) []string {
	if with {
		return append([]string{key}, more...)
	}
	return []string{key}
}
