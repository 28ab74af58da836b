package transcript

import (
	"fmt"
	"slices"
	"strings"

	"parley/internal/attach"
	"parley/internal/chat"
	"parley/internal/sanitize"
)

// This file collapses what an operator message holds at length: each long paste sent from the
// input box shows as one line, "[pasted 50 lines · ctrl+o expands]", each attached file as its
// label, and a long message with neither known in it (one sent before this screen opened) as
// its first lines and how many more. The stored text, and what is sent, stay whole: ctrl+o
// shows one message whole, or collapses it again.

// longLines: an operator message of more lines than this, with nothing known folded in it,
// shows its first headLines.
const (
	longLines = 12
	headLines = 3
)

// sentPaste is a long paste sent from the input box (sanitized as the transcript holds text),
// and what its label there said, without the brackets.
type sentPaste struct{ text, label string }

// folded is a piece of an operator message's text, text[start:end], shown as its label: an
// attached file, or a paste, which also says how to expand it.
type folded struct {
	start, end int
	label      string
	paste      bool
}

// NotePaste notes a long paste of a message about to be sent, which the input box showed as
// label ("[pasted 50 lines]"), to show it collapsed once the message is.
func (t *List) NotePaste(text, label string) {
	t.pastes = append(t.pastes, sentPaste{sanitize.String(text), strings.TrimSuffix(strings.TrimPrefix(label, "["), "]")})
}

// fold finds what operator message e shows collapsed: its attached files, and the pastes noted
// that it holds. A paste that ended its message lost its last line ends (attach.Compose trims
// them), so it is looked for without them too.
func (t *List) fold(e *entry) {
	text := e.text.String()
	e.files = attach.Find(text)
	e.folds = e.folds[:0]
	for _, f := range e.files {
		e.folds = append(e.folds, folded{f.Start, f.End, sanitize.String(f.Label()), false})
	}
	for _, p := range t.pastes {
		for _, body := range []string{p.text, strings.TrimRight(p.text, "\n")} {
			i := strings.Index(text, body)
			if body != "" && i >= 0 && !overlapsFold(e.folds, i, i+len(body)) {
				e.folds = append(e.folds, folded{i, i + len(body), p.label, true})
				break
			}
		}
	}
	slices.SortFunc(e.folds, func(a, b folded) int { return a.start - b.start })
	e.long = len(e.folds) == 0 && strings.Count(strings.TrimRight(text, "\n"), "\n") >= longLines
	if e.folded() {
		t.folding++
	}
}

// overlapsFold reports whether text[start:end] overlaps a piece already folded.
func overlapsFold(folds []folded, start, end int) bool {
	return slices.ContainsFunc(folds, func(f folded) bool { return start < f.end && f.start < end })
}

// folded reports whether the entry has anything to collapse.
func (e *entry) folded() bool { return len(e.folds) > 0 || e.long }

// collapsed is operator message e's text as the transcript shows it.
func (t *List) collapsed(e *entry) string {
	text := e.text.String()
	if e.whole {
		return text
	}
	expands := "" // the key, when the screen named one
	if k := t.opts.ExpandKey; k != "" {
		expands = " · " + k + " expands"
	}
	if e.long {
		lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
		return strings.Join(lines[:headLines], "\n") + "\n" +
			fmt.Sprintf("[… %d more lines%s]", len(lines)-headLines, expands)
	}
	for i := len(e.folds) - 1; i >= 0; i-- {
		f := e.folds[i]
		label := f.label
		if f.paste {
			label += expands
		}
		text = text[:f.start] + "[" + label + "]" + text[f.end:]
	}
	return text
}

// HasPastes reports whether ctrl+o has a message to show whole or collapse again.
func (t *List) HasPastes() bool { return t.pasteTarget() != nil }

// PastesShown reports whether the message ctrl+o acts on is shown whole.
func (t *List) PastesShown() bool {
	e := t.pasteTarget()
	return e != nil && e.whole
}

// TogglePastes shows the selected message whole, or collapses it again: an operator message,
// or the one a selected reply answers; with none selected, the newest with something collapsed.
func (t *List) TogglePastes() {
	if e := t.pasteTarget(); e != nil {
		e.whole = !e.whole
		e.version++
		e.cache.lines = nil
	}
}

// pasteTarget is the message TogglePastes acts on, nil when there is none.
func (t *List) pasteTarget() *entry {
	if t.folding == 0 {
		return nil
	}
	if t.sel >= 0 && t.sel < len(t.entries) {
		e := t.entries[t.sel]
		if e.message.Role != chat.RoleUser {
			e = t.byID[e.message.AnchorID]
		}
		if e == nil || !e.folded() {
			return nil
		}
		return e
	}
	for _, e := range slices.Backward(t.entries) {
		if e.message.Role == chat.RoleUser && e.folded() {
			return e
		}
	}
	return nil
}

// Piece is a piece of an operator message's text that the transcript shows collapsed:
// text[Start:End], labelled as the input box labelled it ("[pasted 50 lines]", or a file's
// "[main.go · 2.1 KiB]").
type Piece struct {
	Start, End int
	Label      string
}

// Collapsed returns, in order, the pieces of operator message id's text (as Text returns it)
// that show collapsed: its attached files and the pastes it was sent with; an edit holds them
// collapsed in the input as they were.
func (t *List) Collapsed(id int64) []Piece {
	e := t.byID[id]
	if e == nil {
		return nil
	}
	out := make([]Piece, 0, len(e.folds))
	for _, f := range e.folds {
		out = append(out, Piece{f.start, f.end, "[" + f.label + "]"})
	}
	return out
}
