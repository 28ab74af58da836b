package inputbox

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/atotto/clipboard"
)

// This file holds long pastes collapsed, each shown as one label until it is expanded, and
// reads the clipboard for ctrl+v.

// collapseLines and collapseBytes: a paste of more lines or bytes than these is held whole
// and shown collapsed, as one "[pasted 1,300 lines]", until expanded.
const (
	collapseLines = MaxHeight
	collapseBytes = 2000
)

// lineEnds turns CRLF and CR line ends into LF.
var lineEnds = strings.NewReplacer("\r\n", "\n", "\r", "\n")

// pasteRune is the first of the runes that stand for collapsed pastes in the text: rune
// pasteRune+i is Box.pastes[i]. They are private-use runes, which typed and pasted text never
// brings in (sanitizeInput replaces them).
const pasteRune = 0x100000

// Paste is a collapsed paste: its text, and the label it shows as.
type Paste struct{ Text, Label string }

// clipboardMsg carries the system clipboard's text, read for ctrl+v.
type clipboardMsg string

// ClipboardErrMsg reports that the system clipboard could not be read for ctrl+v; the box's
// owner says so.
type ClipboardErrMsg struct{ Err error }

// readClipboard reads the system clipboard, for ctrl+v (a terminal's own paste arrives as
// tea.PasteMsg).
func readClipboard() tea.Msg {
	s, err := clipboard.ReadAll()
	if err != nil {
		return ClipboardErrMsg{err}
	}
	return clipboardMsg(s)
}

// paste inserts pasted text at the cursor: as text, or, when it is long, as one rune that
// stands for it, shown collapsed. Lines may end in CR (tmux's paste-buffer, many terminals),
// CRLF or LF: each counts as a line, and is held as LF.
func (m *Box) paste(text string) {
	text = lineEnds.Replace(text)
	if strings.Count(text, "\n") < collapseLines && len(text) <= collapseBytes {
		m.insert(sanitizeInput(text, false))
	} else {
		text := string(sanitizeInput(text, true))
		m.pastes = append(m.pastes, Paste{text, pasteLabel(text)})
		m.held++
		m.insert([]rune{rune(pasteRune + len(m.pastes) - 1)})
	}
	m.goal = -1
	m.scroll()
}

// Pastes returns the collapsed pastes the box holds, in the order of the text.
func (m Box) Pastes() []Paste {
	if m.held == 0 {
		return nil
	}
	var out []Paste
	for _, l := range m.lines {
		for _, r := range l.runes {
			if r >= pasteRune {
				out = append(out, m.pastes[r-pasteRune])
			}
		}
	}
	return out
}

// Held is a piece of a text given to SetValueHolding that the box holds collapsed, shown as
// Label: text[Start:End].
type Held struct {
	Start, End int
	Label      string
}

// SetValueHolding replaces the text with s, the cursor at its end, holding the pieces of s
// that held names collapsed, as long pastes are (an edited message's attached files). The
// pieces are in order and do not overlap.
func (m *Box) SetValueHolding(s string, held []Held) {
	m.Reset()
	at := 0
	for _, h := range held {
		m.insert(sanitizeInput(s[at:h.Start], false))
		m.pastes = append(m.pastes, Paste{string(sanitizeInput(s[h.Start:h.End], true)), h.Label})
		m.held++
		m.insert([]rune{rune(pasteRune + len(m.pastes) - 1)})
		at = h.End
	}
	m.insert(sanitizeInput(s[at:], false))
	m.goal = -1
	m.scroll()
}

// HoldsPastes reports whether the box shows a collapsed paste.
func (m Box) HoldsPastes() bool { return m.held > 0 }

// ExpandPastes turns the collapsed pastes into text, to edit; the cursor stays where it was
// in the text.
func (m *Box) ExpandPastes() {
	if m.held == 0 {
		return
	}
	last := len(m.lines) - 1
	before := m.between(0, 0, m.row, m.col)
	after := m.between(m.row, m.col, last, len(m.lines[last].runes))
	m.Reset()
	m.insert(sanitizeInput(before, false))
	row, col := m.row, m.col
	m.insert(sanitizeInput(after, false))
	m.row, m.col = row, col
	m.scroll()
}

// pasteLabel is how a collapsed paste shows: "[pasted 1,300 lines]", or, for one line,
// "[pasted 12,345 characters]".
func pasteLabel(text string) string {
	lines := strings.Count(strings.TrimSuffix(text, "\n"), "\n") + 1
	if lines == 1 {
		return "[pasted " + thousands(len([]rune(text))) + " characters]"
	}
	return "[pasted " + thousands(lines) + " lines]"
}

// thousands formats n with commas between thousands.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TakeBack removes typed from just before the cursor when that is what the box holds there,
// and reports whether it did: keys typed one by one that turn out to be the start of a paste
// are taken back, to be pasted whole.
func (m *Box) TakeBack(typed string) bool {
	rs := sanitizeInput(typed, false)
	l := m.line()
	if len(rs) == 0 || m.col < len(rs) || !slices.Equal(l[m.col-len(rs):m.col], rs) {
		return false
	}
	m.delete(m.col-len(rs), m.col)
	m.scroll()
	return true
}
