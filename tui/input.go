package tui

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"github.com/atotto/clipboard"
)

// This file owns the message box: its text, its keys and pastes. inputview.go wraps and draws
// it. It replaces bubbles' textarea, whose every key re-wraps and re-draws the whole text (a
// key took a second with 118 KB in it): here a key re-wraps only the line it edits and the
// view draws only the rows on screen, so a key costs the same with a large draft as with an
// empty one.

// collapseLines and collapseBytes: a paste of more lines or bytes than these is held whole
// and shown collapsed, as one "[pasted 1,300 lines]", until expanded.
const (
	collapseLines = maxInputHeight
	collapseBytes = 2000
)

// pasteRune is the first of the runes that stand for collapsed pastes in the text: rune
// pasteRune+i is inputBox.pastes[i]. They are private-use runes, which typed and pasted text never
// brings in (sanitizeInput replaces them).
const pasteRune = 0x100000

// inputBox is the message box: a multi-line editor whose text is kept as lines of runes. The
// model keeps it by value, like the bubbles components.
type inputBox struct {
	lines []inputLine
	// row and col are the cursor: a line and a rune index in it. goal is the column the
	// cursor keeps on its way up and down, or -1.
	row, col, goal int
	// pastes holds the collapsed pastes; held counts the paste runes in the text.
	pastes []heldPaste
	held   int

	// width is the box's width, the prompt included; wrapGen changes with it, and a line
	// whose rows were wrapped under another is wrapped again when it is drawn.
	width, wrapGen int
	// top is the first row on screen.
	top rowPos

	focused     bool
	Placeholder string
	Prompt      string
	styles      textarea.Styles
	KeyMap      inputKeys
}

// heldPaste is a collapsed paste: its text, and how it shows.
type heldPaste struct{ text, label string }

// inputLine is one line of the text and the rows it is wrapped in.
type inputLine struct {
	runes []rune
	// rows are the starts of the line's rows when it was last wrapped, under gen.
	rows []int
	gen  int
}

// rowPos is a row on screen: row row of line line.
type rowPos struct{ line, row int }

// inputKeys are the editing keys of the message box.
type inputKeys struct {
	CharacterForward, CharacterBackward   key.Binding
	WordForward, WordBackward             key.Binding
	LineNext, LinePrevious                key.Binding
	LineStart, LineEnd                    key.Binding
	InputBegin, InputEnd                  key.Binding
	DeleteCharacterBackward               key.Binding
	DeleteCharacterForward                key.Binding
	DeleteWordBackward, DeleteWordForward key.Binding
	DeleteBeforeCursor, DeleteAfterCursor key.Binding
	InsertNewline                         key.Binding
	Paste                                 key.Binding
}

// defaultInputKeys returns the editing keys of bubbles' textarea, with newline on newline.
func defaultInputKeys(newline key.Binding) inputKeys {
	b := func(keys ...string) key.Binding { return key.NewBinding(key.WithKeys(keys...)) }
	return inputKeys{
		CharacterForward:        b("right", "ctrl+f"),
		CharacterBackward:       b("left", "ctrl+b"),
		WordForward:             b("alt+right", "ctrl+right", "alt+f"),
		WordBackward:            b("alt+left", "ctrl+left", "alt+b"),
		LineNext:                b("down", "ctrl+n"),
		LinePrevious:            b("up", "ctrl+p"),
		LineStart:               b("home", "ctrl+a"),
		LineEnd:                 b("end", "ctrl+e"),
		InputBegin:              b("alt+<", "ctrl+home"),
		InputEnd:                b("alt+>", "ctrl+end"),
		DeleteCharacterBackward: b("backspace", "ctrl+h"),
		DeleteCharacterForward:  b("delete", "ctrl+d"),
		DeleteWordBackward:      b("alt+backspace", "ctrl+w", "ctrl+backspace"),
		DeleteWordForward:       b("alt+delete", "alt+d", "ctrl+delete"),
		DeleteBeforeCursor:      b("ctrl+u"),
		DeleteAfterCursor:       b("ctrl+k"),
		InsertNewline:           newline,
		Paste:                   b("ctrl+v"),
	}
}

// newInputBox returns an empty, unfocused box.
func newInputBox(keys inputKeys) inputBox {
	return inputBox{lines: []inputLine{{}}, goal: -1, KeyMap: keys, styles: textarea.DefaultStyles(true)}
}

// clipboardMsg carries the system clipboard's text, read for ctrl+v.
type clipboardMsg string

// readClipboard reads the system clipboard, for ctrl+v (a terminal's own paste arrives as
// tea.PasteMsg).
func readClipboard() tea.Msg {
	s, err := clipboard.ReadAll()
	if err != nil {
		return noticeMsg{text: "could not read the clipboard: " + err.Error(), err: true}
	}
	return clipboardMsg(s)
}

// Update handles a key or a paste while the box has the focus.
func (m inputBox) Update(msg tea.Msg) (inputBox, tea.Cmd) {
	if !m.focused {
		return m, nil
	}
	switch msg := msg.(type) {
	case tea.PasteMsg:
		m.paste(msg.Content)
	case clipboardMsg:
		m.paste(string(msg))
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// key applies an editing key, or types the key's text.
func (m *inputBox) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.KeyMap
	goal := -1
	switch {
	case key.Matches(msg, k.InsertNewline):
		m.insert([]rune{'\n'})
	case key.Matches(msg, k.Paste):
		return readClipboard
	case key.Matches(msg, k.CharacterForward):
		if m.col < len(m.line()) {
			m.col++
		} else if m.row < len(m.lines)-1 {
			m.row, m.col = m.row+1, 0
		}
	case key.Matches(msg, k.CharacterBackward):
		if m.col > 0 {
			m.col--
		} else if m.row > 0 {
			m.row, m.col = m.row-1, len(m.lines[m.row-1].runes)
		}
	case key.Matches(msg, k.WordForward):
		m.col = m.wordEnd()
	case key.Matches(msg, k.WordBackward):
		m.col = m.wordStart()
	case key.Matches(msg, k.LineNext):
		goal = m.vertical(1)
	case key.Matches(msg, k.LinePrevious):
		goal = m.vertical(-1)
	case key.Matches(msg, k.LineStart):
		m.col = 0
	case key.Matches(msg, k.LineEnd):
		m.col = len(m.line())
	case key.Matches(msg, k.InputBegin):
		m.row, m.col = 0, 0
	case key.Matches(msg, k.InputEnd):
		m.row = len(m.lines) - 1
		m.col = len(m.line())
	case key.Matches(msg, k.DeleteCharacterBackward):
		if m.col > 0 {
			m.delete(m.col-1, m.col)
		} else {
			m.joinUp()
		}
	case key.Matches(msg, k.DeleteCharacterForward):
		if m.col < len(m.line()) {
			m.delete(m.col, m.col+1)
		} else {
			m.joinDown()
		}
	case key.Matches(msg, k.DeleteWordBackward):
		if m.col > 0 {
			m.delete(m.wordStart(), m.col)
		} else {
			m.joinUp()
		}
	case key.Matches(msg, k.DeleteWordForward):
		if m.col < len(m.line()) {
			m.delete(m.col, m.wordEnd())
		} else {
			m.joinDown()
		}
	case key.Matches(msg, k.DeleteBeforeCursor):
		m.delete(0, m.col)
	case key.Matches(msg, k.DeleteAfterCursor):
		m.delete(m.col, len(m.line()))
	default:
		if msg.Text != "" {
			m.insert(sanitizeInput(msg.Text, false))
		}
	}
	m.goal = goal
	m.scroll()
	return nil
}

// paste inserts pasted text at the cursor: as text, or, when it is long, as one rune that
// stands for it, shown collapsed.
func (m *inputBox) paste(text string) {
	if strings.Count(text, "\n") < collapseLines && len(text) <= collapseBytes {
		m.insert(sanitizeInput(text, false))
	} else {
		text := string(sanitizeInput(text, true))
		m.pastes = append(m.pastes, heldPaste{text, pasteLabel(text)})
		m.held++
		m.insert([]rune{rune(pasteRune + len(m.pastes) - 1)})
	}
	m.goal = -1
	m.scroll()
}

// sanitizeInput turns text into runes the box holds: line ends become "\n", control
// characters and paste runes are dropped, and tabs become four spaces unless keepTabs (a
// collapsed paste keeps its tabs, since it is sent as it was pasted).
func sanitizeInput(text string, keepTabs bool) []rune {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	out := make([]rune, 0, len(text))
	for _, r := range text {
		switch {
		case r == '\r':
			out = append(out, '\n')
		case r == '\t' && !keepTabs:
			out = append(out, ' ', ' ', ' ', ' ')
		case r == '\n' || r == '\t':
			out = append(out, r)
		case unicode.IsControl(r) || r >= pasteRune:
		default:
			out = append(out, r)
		}
	}
	return out
}

// line returns the cursor's line.
func (m *inputBox) line() []rune { return m.lines[m.row].runes }

// edited notes that line i changed: its rows are wrapped again when drawn.
func (m *inputBox) edited(i int) { m.lines[i].rows = nil }

// insert inserts runes, which may hold newlines, at the cursor and moves the cursor after
// them. Only the cursor's line is copied; the lines after it move down in one copy.
func (m *inputBox) insert(rs []rune) {
	parts := splitRunes(rs)
	cur := m.line()
	rest := slices.Clone(cur[m.col:])
	first := append(cur[:m.col:m.col], parts[0]...)
	if len(parts) == 1 {
		m.lines[m.row].runes = append(first, rest...)
		m.edited(m.row)
		m.col += len(parts[0])
		return
	}
	m.lines[m.row].runes = first
	m.edited(m.row)
	added := make([]inputLine, len(parts)-1)
	for i, p := range parts[1:] {
		added[i].runes = p
	}
	last := &added[len(added)-1]
	m.col = len(last.runes)
	last.runes = append(last.runes, rest...)
	m.lines = slices.Insert(m.lines, m.row+1, added...)
	m.row += len(added)
}

// splitRunes splits runes at newlines; each part has a capacity of its own.
func splitRunes(rs []rune) [][]rune {
	var parts [][]rune
	for {
		i := slices.Index(rs, '\n')
		if i < 0 {
			return append(parts, slices.Clip(rs))
		}
		parts = append(parts, rs[:i:i])
		rs = rs[i+1:]
	}
}

// delete deletes runes [from, to) of the cursor's line and puts the cursor at from.
func (m *inputBox) delete(from, to int) {
	l := m.line()
	for _, r := range l[from:to] {
		if r >= pasteRune {
			m.held--
		}
	}
	m.lines[m.row].runes = append(l[:from], l[to:]...)
	m.edited(m.row)
	m.col = from
}

// joinUp joins the cursor's line to the end of the one above, the cursor at the seam.
func (m *inputBox) joinUp() {
	if m.row == 0 {
		return
	}
	m.row--
	m.col = len(m.line())
	m.joinDown()
}

// joinDown joins the line below to the end of the cursor's line.
func (m *inputBox) joinDown() {
	if m.row == len(m.lines)-1 {
		return
	}
	m.lines[m.row].runes = append(m.line(), m.lines[m.row+1].runes...)
	m.edited(m.row)
	m.lines = slices.Delete(m.lines, m.row+1, m.row+2)
}

// wordEnd returns the end of the word at or after the cursor, on its line.
func (m *inputBox) wordEnd() int {
	l, i := m.line(), m.col
	for i < len(l) && unicode.IsSpace(l[i]) {
		i++
	}
	for i < len(l) && !unicode.IsSpace(l[i]) {
		i++
	}
	return i
}

// wordStart returns the start of the word before the cursor, on its line.
func (m *inputBox) wordStart() int {
	l, i := m.line(), m.col
	for i > 0 && unicode.IsSpace(l[i-1]) {
		i--
	}
	for i > 0 && !unicode.IsSpace(l[i-1]) {
		i--
	}
	return i
}

// Value returns the text, collapsed pastes in full.
func (m inputBox) Value() string {
	last := len(m.lines) - 1
	return m.between(0, 0, last, len(m.lines[last].runes))
}

// between returns the text from rune c0 of line r0 to rune c1 of line r1, collapsed pastes
// in full.
func (m inputBox) between(r0, c0, r1, c1 int) string {
	var b strings.Builder
	for i := r0; i <= r1; i++ {
		rs := m.lines[i].runes
		if i == r1 {
			rs = rs[:c1]
		}
		if i == r0 {
			rs = rs[c0:]
		} else {
			b.WriteByte('\n')
		}
		for _, r := range rs {
			if r >= pasteRune {
				b.WriteString(m.pastes[r-pasteRune].text)
			} else {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// Empty reports whether the box holds no text, without building it.
func (m inputBox) Empty() bool { return len(m.lines) == 1 && len(m.lines[0].runes) == 0 }

// SetValue replaces the text with s, the cursor at its end.
func (m *inputBox) SetValue(s string) {
	m.Reset()
	m.insert(sanitizeInput(s, false))
	m.scroll()
}

// Reset empties the box.
func (m *inputBox) Reset() {
	m.lines = []inputLine{{}}
	m.row, m.col, m.goal = 0, 0, -1
	m.pastes, m.held = nil, 0
	m.top = rowPos{}
}

// Pastes returns the text of the collapsed pastes the box holds.
func (m inputBox) Pastes() []string {
	if m.held == 0 {
		return nil
	}
	var out []string
	for _, l := range m.lines {
		for _, r := range l.runes {
			if r >= pasteRune {
				out = append(out, m.pastes[r-pasteRune].text)
			}
		}
	}
	return out
}

// HoldsPastes reports whether the box shows a collapsed paste.
func (m inputBox) HoldsPastes() bool { return m.held > 0 }

// ExpandPastes turns the collapsed pastes into text, to edit; the cursor stays where it was
// in the text.
func (m *inputBox) ExpandPastes() {
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

// Focus gives the box the focus: keys reach it and the cursor shows.
func (m *inputBox) Focus() tea.Cmd {
	m.focused = true
	return nil
}

// Blur takes the focus away.
func (m *inputBox) Blur() { m.focused = false }

// SetStyles sets the styles, those of bubbles' textarea.
func (m *inputBox) SetStyles(s textarea.Styles) { m.styles = s }
