package tui

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// This file tells a paste that arrives as keys from typing. A terminal without bracketed
// paste (or tmux's paste-buffer without -p) sends pasted text as key presses, each line ended
// by enter: taken as typed, every line would be sent as a message of its own. Keys come that
// close together only from a paste, so an enter right after a key waits that long: when a
// key follows as quickly, the enter is a line end and the keys a paste; otherwise it sends.
//
// The times are when the loop handles a key, not when the terminal sent it, and a loaded
// machine can hold the loop past the gap in the middle of a paste already read. So while a
// wait's tick is asked for and not yet handled, any key counts as quick: it was queued before
// the tick, so it came within the gap. And a tick handled late (a gap after it was due) asks
// once more before it ends the wait, for keys read while the loop was held.

// DefaultPasteGap is the program's Options.PasteGap: no one types an enter and the key after
// it this close together, and a paste's keys arrive much closer. An enter waits only when it
// comes this close after a key, so a typed one sends at once.
const DefaultPasteGap = 50 * time.Millisecond

// keyPaste is the paste being told from typing. Its times are the screen's clock's.
type keyPaste struct {
	// last is when the last key arrived; run is the text of the printable keys typed into the
	// input in one quick run up to it (each within the gap of the one before).
	last time.Time
	run  string
	// enter is the enter that came right after run, waiting to see whether a key follows as
	// quickly, and enters how many came in a row (0: none waits). text, while collecting, is
	// the paste so far.
	enter      tea.KeyPressMsg
	enters     int
	collecting bool
	text       string
	// tag names the newest pasteTickMsg asked for; older ones are dropped. ticking is true
	// while it is asked for by a wait and not yet handled, due is when it was asked to come,
	// and rechecked that a late one asked again since the last key.
	tag       int
	ticking   bool
	due       time.Time
	rechecked bool
	// gap is how close together keys after an enter make it a paste's line end (0: never).
	gap time.Duration
}

// pasteKey sees a key before it acts. It reports took when the key is part of a paste (held
// back, to go into the input as one paste when the keys stop). Otherwise the key acts as it
// would, after cmd: a waiting enter that nothing followed sends first, a paste that ended goes
// into the input first.
func (m *Model) pasteKey(msg tea.KeyPressMsg, confirming bool) (cmd tea.Cmd, took bool) {
	p := &m.keyPaste
	if p.gap <= 0 {
		return nil, false
	}
	now := m.clock.Now()
	quick := !p.last.IsZero() && (now.Sub(p.last) < p.gap || p.ticking)
	p.rechecked = false
	text, isText := pasteText(msg, m.keys.Input.Newline)
	switch {
	case p.collecting && isText && quick:
		p.text += text
		p.last = now
		return nil, true
	case p.collecting:
		cmd = m.pasteEnded(p.endPaste())
	case p.enters > 0 && quick && text == "\n":
		p.enters++ // another line end in a row: what follows decides
		p.last = now
		return nil, true
	case p.enters > 0 && isText && quick:
		// A key right after the enter: the run, the enters and this key are a paste.
		if m.input.TakeBack(p.run) {
			p.text = p.run
		}
		p.text += strings.Repeat("\n", p.enters) + text
		p.collecting, p.enters, p.last = true, 0, now
		return nil, true
	case p.enters > 0:
		cmd = m.pasteEnded(p.releaseEnters())
	}
	if key.Matches(msg, m.keys.Input.Send) && quick && p.run != "" && m.focus == focusInput && !confirming {
		p.enter, p.enters, p.last = msg, 1, now
		return tea.Batch(cmd, p.tick(now, p.gap)), true
	}
	switch {
	case m.focus == focusInput && msg.Text != "" && msg.Mod&^tea.ModShift == 0 && quick:
		p.run += msg.Text
	case m.focus == focusInput && msg.Text != "" && msg.Mod&^tea.ModShift == 0:
		p.run = msg.Text
	default:
		p.run = ""
	}
	p.last = now
	return cmd, false
}

// pasteText is what a key adds to a paste: its text, a line end for enter and the newline
// keys, a tab for tab; isText is false for any other key, which ends a paste.
func pasteText(msg tea.KeyPressMsg, newline key.Binding) (text string, isText bool) {
	switch {
	case msg.Code == tea.KeyEnter && msg.Mod == 0, key.Matches(msg, newline):
		return "\n", true
	case msg.Code == tea.KeyTab && msg.Mod == 0:
		return "\t", true
	case msg.Text != "" && msg.Mod&^tea.ModShift == 0:
		return msg.Text, true
	}
	return "", false
}

// tick asks for a pasteTickMsg d after now.
func (p *keyPaste) tick(now time.Time, d time.Duration) tea.Cmd {
	p.tag++
	tag := p.tag
	p.ticking, p.due = true, now.Add(d)
	return tea.Tick(d, func(time.Time) tea.Msg { return pasteTickMsg{tag: tag} })
}

// pasteEnd is what a paste told from typing leaves to the screen when it ends: the enters
// that waited (enters of enter), to act as they would have when they came, or the paste
// collected, to go into the input as one.
type pasteEnd struct {
	enter  tea.KeyPressMsg
	enters int
	paste  string
	pasted bool
}

// tickDue ends what waits once no key has come for the gap by now: the enters are released,
// the paste ends. A key that came since moves the end on (next), as does a tick handled a gap
// late, once; a stale tick ends nothing.
func (p *keyPaste) tickDue(msg pasteTickMsg, now time.Time) (end pasteEnd, next tea.Cmd) {
	if msg.tag != p.tag {
		return pasteEnd{}, nil
	}
	p.ticking = false
	if p.enters == 0 && !p.collecting {
		return pasteEnd{}, nil
	}
	if quiet := now.Sub(p.last); quiet < p.gap {
		return pasteEnd{}, p.tick(now, p.gap-quiet)
	}
	if now.Sub(p.due) >= p.gap && !p.rechecked {
		p.rechecked = true
		return pasteEnd{}, p.tick(now, p.gap)
	}
	if p.collecting {
		return p.endPaste(), nil
	}
	return p.releaseEnters(), nil
}

// releaseEnters lets the enters that waited go: the first sends.
func (p *keyPaste) releaseEnters() pasteEnd {
	end := pasteEnd{enter: p.enter, enters: p.enters}
	p.enters, p.run, p.ticking = 0, "", false
	return end
}

// endPaste ends the paste collected.
func (p *keyPaste) endPaste() pasteEnd {
	end := pasteEnd{paste: p.text, pasted: true}
	p.collecting, p.text, p.run, p.ticking = false, "", "", false
	return end
}

// pasteEnded acts on what a paste told from typing left: the enters act as keys, the paste
// goes into the input.
func (m *Model) pasteEnded(e pasteEnd) tea.Cmd {
	if e.pasted {
		return m.handlePaste(tea.PasteMsg{Content: e.paste})
	}
	var cmds []tea.Cmd
	for range e.enters {
		cmds = append(cmds, m.routeKey(e.enter, confirm{}))
	}
	return tea.Batch(cmds...)
}
