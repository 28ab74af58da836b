package tui

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	tea "charm.land/bubbletea/v2"

	"parley/internal/chat"
	"parley/internal/markdown"
	"parley/tui/clipboard"
	"parley/tui/transcript"
)

// This file copies what the operator asks for (a message, one code block of a reply, the last
// reply) to the clipboard: through the system's clipboard tool in a command, never in Update,
// and as OSC 52 where that is the way (see package clipboard); and it says which way it went.
// It also owns whether the mouse is captured.

// altScrollOn asks the terminal to send the wheel as arrow keys in the alternate screen
// (xterm's alternate scroll mode), so the wheel scrolls while the mouse is left to the
// terminal for selecting text. It is left on at exit: the terminal's own setting is not known,
// and the mode acts only in the alternate screen.
const altScrollOn = "\x1b[?1007h"

// copiedMsg reports that the clipboard tool took what (text), or failed to (err).
type copiedMsg struct {
	what, text string
	way        clipboard.Way
	err        error
}

// copying is how the screen copies and whether it holds the mouse. Model embeds it.
type copying struct {
	// clip is how text is copied; codeCopy is the code block Y copied last; mouse is set while
	// the mouse is captured.
	clip     clipboard.Way
	codeCopy codeCopy
	mouse    bool
}

// codeCopy is the code block Y copied last: which reply, and the number of the next to copy.
type codeCopy struct {
	id   int64
	next int
}

// chooseClipboard returns o's way of copying, or the system's.
func chooseClipboard(o Options) clipboard.Way {
	if o.Clipboard != nil {
		return *o.Clipboard
	}
	return systemClipboard()
}

// systemClipboard returns the way of copying that fits parley's environment. Tests replace it:
// what a test copies must not depend on the machine's display.
var systemClipboard = func() clipboard.Way { return clipboard.Choose(os.Getenv, exec.LookPath) }

// copyText copies text, which is what: through the tool in a command (its message says how it
// went), and as OSC 52 at once where that is the way. n says so, for noticeLife by clock once
// it is done.
func (c *copying) copyText(n *noticeLine, clock chat.Clock, text, what string) tea.Cmd {
	if text == "" {
		n.setNotice(what+" is empty: nothing was copied", false)
		return nil
	}
	w := c.clip
	var osc tea.Cmd
	if w.OSC52 {
		osc = tea.SetClipboard(text)
	}
	if w.Tool == nil {
		return tea.Batch(osc, n.flash(clock, what+" handed to the terminal to copy (OSC 52) — tmux needs set-clipboard on", false))
	}
	n.setNotice("copying "+what+" with "+w.Name()+"…", false)
	run := func() tea.Msg {
		return copiedMsg{what: what, text: text, way: w, err: w.Run(context.Background(), text)}
	}
	return tea.Batch(osc, run)
}

// handleCopied says on n how a copy through the tool went; when the tool failed, the text goes
// as OSC 52 instead, unless it went so already.
func handleCopied(n *noticeLine, clock chat.Clock, msg copiedMsg) tea.Cmd {
	tool := msg.way.Name()
	switch {
	case msg.err != nil && msg.way.OSC52:
		n.setNotice(fmt.Sprintf("%s: %v; sent as OSC 52 — tmux needs set-clipboard on", msg.what, msg.err), true)
	case msg.err != nil:
		n.setNotice(fmt.Sprintf("%s: %v; sent as OSC 52 instead — tmux needs set-clipboard on", msg.what, msg.err), true)
		return tea.SetClipboard(msg.text)
	case msg.way.OSC52:
		return n.flash(clock, msg.what+" copied with "+tool+" and sent as OSC 52", false)
	default:
		return n.flash(clock, msg.what+" copied with "+tool, false)
	}
	return nil
}

// copyCode copies one code block of the reply selected in t (of the reply to the selected
// message): the first, and on each press again (the key again) the next.
func (c *copying) copyCode(n *noticeLine, clock chat.Clock, t *transcript.List, again string) tea.Cmd {
	id := t.Reply(t.Selected())
	blocks := markdown.CodeBlocks(t.Text(id))
	if len(blocks) == 0 {
		n.setNotice("this reply has no code block", false)
		return nil
	}
	i := 0
	if c.codeCopy.id == id {
		i = c.codeCopy.next % len(blocks)
	}
	c.codeCopy = codeCopy{id: id, next: i + 1}
	what := "the code block"
	if len(blocks) > 1 {
		what = fmt.Sprintf("code block %d of %d (%s again: the next)", i+1, len(blocks), again)
	}
	return c.copyText(n, clock, blocks[i].Code, what)
}

// toggleMouse captures the mouse (the wheel scrolls, the terminal's selection needs shift)
// or gives it back to the terminal (drag selects text), saying so on n with the key that
// toggles it.
func (c *copying) toggleMouse(n *noticeLine, key string) {
	c.mouse = !c.mouse
	if c.mouse {
		n.setNotice("mouse captured: the wheel scrolls; shift+drag selects text · "+key+" gives it back", false)
	} else {
		n.setNotice("mouse left to the terminal: drag selects text · "+key+" captures it", false)
	}
}

// mouseMode is the view's mouse mode: cell motion while captured, none otherwise.
func (c *copying) mouseMode() tea.MouseMode {
	if c.mouse {
		return tea.MouseModeCellMotion
	}
	return tea.MouseModeNone
}
