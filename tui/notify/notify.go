// Package notify says when a long reply ended while the terminal was looked away from (a bell,
// or an OSC 9 notification), what the window's title says, and what the chat screen writes to
// the terminal on start and exit so that the title and the modes it set are given back. It
// decides and words; the screen writes what it returns.
package notify

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Kind is config.toml's notify: how a long reply's end is signalled.
type Kind string

// The kinds. Bell writes BEL (tmux sets its window's bell flag, terminals flash or sound);
// OSC9 a desktop notification where the terminal shows one; Off nothing.
const (
	Bell Kind = "bell"
	OSC9 Kind = "osc9"
	Off  Kind = "off"
)

// MinReply is how long a reply must take for its end to be signalled: a short one is watched.
const MinReply = 10 * time.Second

// The sequences of a signal.
const (
	bel  = "\a"
	osc9 = "\x1b]9;parley: reply finished\a"
)

// The sequences written around the chat screen: the window title pushed on the terminal's
// stack at start (XTWINOPS 22) and popped back at exit (23), and at exit the cursor style set
// back to the terminal's default (DECSCUSR 0; Bubble Tea leaves a blinking block set) and the
// wheel-as-arrows mode the screen turns on (?1007) turned off.
const (
	Start = "\x1b[22;0t"
	Exit  = "\x1b[23;0t\x1b[0 q\x1b[?1007l"
)

// focus is what the terminal last said of its focus.
type focus int

const (
	unknown focus = iota // the terminal does not report focus, or has not yet
	focused
	blurred
)

// Turn watches the replies of one screen: when each started, and whether the terminal is
// focused. Its zero value signals with a bell.
type Turn struct {
	kind    Kind
	focus   focus
	started time.Time
}

// New returns a Turn that signals with kind; "" is Bell.
func New(kind Kind) Turn {
	if kind == "" {
		kind = Bell
	}
	return Turn{kind: kind}
}

// SetFocus records the terminal's focus report (FocusMsg, BlurMsg).
func (t *Turn) SetFocus(isFocused bool) {
	t.focus = blurred
	if isFocused {
		t.focus = focused
	}
}

// Started records that a reply started at now.
func (t *Turn) Started(now time.Time) { t.started = now }

// Ended returns what to write to the terminal as the reply started last ends at now: the
// signal, when it took MinReply or more and the terminal is not known to be focused (one that
// reports no focus gets the signal anyway); else "". A reply the operator cancelled is not
// signalled: they were there.
func (t *Turn) Ended(now time.Time, cancelled bool) string {
	started := t.started
	t.started = time.Time{}
	if cancelled || started.IsZero() || now.Sub(started) < MinReply || t.focus == focused {
		return ""
	}
	switch t.kind {
	case Bell:
		return bel
	case OSC9:
		return osc9
	}
	return ""
}

// Title is the window's title: the session's, "parley" when it has none, behind "… " while a
// reply streams. Control characters and broken UTF-8 are dropped: the title is written inside an OSC.
func Title(session string, streaming bool) string {
	title := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == utf8.RuneError {
			return -1
		}
		return r
	}, strings.TrimSpace(session))
	if title == "" {
		title = "parley"
	} else {
		title = fmt.Sprintf("%s — parley", title)
	}
	if streaming {
		return "… " + title
	}
	return title
}
