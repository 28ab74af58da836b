package transcript

import (
	"strings"

	"parley/internal/chat"
	"parley/internal/markdown"
	"parley/internal/sanitize"
)

// This file owns the seams of continued replies: where a reply that went on from a cut one
// (history.Continue) joins the text it was given, marked in the text as shown, and only there.

// seamMark is the mark put in a reply's markdown where its continuation begins, and drawn dim
// in its place: a caret insertion point, one column wide, which replies all but never hold.
const seamMark = "‸"

// seamAt is where in the sanitized text of msg its seam falls, 0 for none: the byte of the
// stored text where the continuation begins, counted in what sanitizing kept.
func seamAt(msg chat.Role, content string, seam int) int {
	if msg != chat.RoleAssistant || seam <= 0 || seam > len(content) {
		return 0
	}
	return len(sanitize.String(content[:seam]))
}

// withSeam returns text with the seam mark after the last word before seam: at the seam itself
// it could begin a line, and turn a heading or a list item into text.
func withSeam(text string, seam int) string {
	if seam <= 0 || seam > len(text) {
		return text
	}
	at := len(strings.TrimRight(text[:seam], " \t\n"))
	return text[:at] + seamMark + text[at:]
}

// dimSeams draws the seam mark in lines dim.
func dimSeams(lines []string) {
	for i, l := range lines {
		if strings.Contains(l, seamMark) {
			lines[i] = strings.ReplaceAll(l, seamMark, "\x1b[2m"+seamMark+"\x1b[22m")
		}
	}
}

// HasSeams reports whether a reply shown was continued from a cut one.
func (t *List) HasSeams() bool { return t.seams > 0 }

// SeamsShown reports whether seams are marked (they are until ToggleSeams hides them).
func (t *List) SeamsShown() bool { return !t.hideSeams }

// ToggleSeams hides the seam marks, or shows them again.
func (t *List) ToggleSeams() {
	t.hideSeams = !t.hideSeams
	for _, e := range t.entries {
		if e.seam > 0 {
			e.cache.lines = nil
			e.md = markdown.Stream{}
		}
	}
}

// Continuable reports whether reply id can be gone on from where it stopped
// (stored.Message.Continuable), as it is now.
func (t *List) Continuable(id int64) bool {
	e := t.byID[id]
	if e == nil || e.streaming {
		return false
	}
	now := e.message
	now.Content = e.text.String()
	return now.Continuable()
}
