package tui

import (
	"strings"

	"parley/tui/keyhelp"
	"parley/tui/slashmenu"
)

// This file enables the bindings of keys.go that act in the current state and names what the
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
	k.Chat.Continue.SetEnabled((trans || empty) && m.cutReply() != 0)
	k.Transcript.Thinking.SetEnabled(selected)
	k.Transcript.Fallback.SetEnabled(m.fallbackOffered())
	k.Chat.Fallback.SetEnabled(m.fallbackOffered())
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
		c.Pastes = keyhelp.Relabel(c.Pastes, "collapse pastes")
	default:
		c.Pastes = keyhelp.Relabel(c.Pastes, "show pastes")
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
