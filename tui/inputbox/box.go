// Package inputbox is the message box: a multi-line editor that owns its text, its cursor,
// its editing keys and the long pastes it holds collapsed.
//
// It replaces bubbles' textarea, whose every key re-wraps and re-draws the whole text (a key
// took a second with 118 KB in it): here a key re-wraps only the line it edits and the view
// draws only the rows on screen, so a key costs the same with a large draft as with an empty
// one. box.go holds its state and what its owner asks of it; edit.go edits its text,
// paste.go holds long pastes collapsed, and view.go wraps and draws it.
package inputbox

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
)

// MaxHeight is the most rows the box grows to before it scrolls.
const MaxHeight = 8

// Box is the message box: a multi-line editor whose text is kept as lines of runes. Its
// owner keeps it by value, like the bubbles components.
type Box struct {
	lines []textLine
	// row and col are the cursor: a line and a rune index in it. goal is the column the
	// cursor keeps on its way up and down, or -1.
	row, col, goal int
	// pastes holds the collapsed pastes; held counts the paste runes in the text.
	pastes []Paste
	held   int
	// rev changes whenever the text may have: a caller that kept it knows, without reading
	// the text, that a key which only moved the cursor left the text as it was.
	rev int

	// width is the box's width, the prompt included; wrapGen changes with it, and a line
	// whose rows were wrapped under another is wrapped again when it is drawn.
	width, wrapGen int
	// top is the first row on screen.
	top rowPos

	focused bool
	styles  textarea.Styles
	// Placeholder shows while the box is empty; Prompt starts every row.
	Placeholder string
	Prompt      string
	// KeyMap are the keys the box edits with.
	KeyMap Keys
}

// textLine is one line of the text and the rows it is wrapped in.
type textLine struct {
	runes []rune
	// rows are the starts of the line's rows when it was last wrapped, under gen.
	rows []int
	gen  int
}

// rowPos is a row on screen: row row of line line.
type rowPos struct{ line, row int }

// Keys are the editing keys of the message box.
type Keys struct {
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

// DefaultKeys returns the editing keys of bubbles' textarea, with newline on newline.
func DefaultKeys(newline key.Binding) Keys {
	b := func(keys ...string) key.Binding { return key.NewBinding(key.WithKeys(keys...)) }
	return Keys{
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

// New returns an empty, unfocused box that edits with keys.
func New(keys Keys) Box {
	return Box{lines: []textLine{{}}, goal: -1, KeyMap: keys, styles: textarea.DefaultStyles(true)}
}

// Update handles a key or a paste while the box has the focus.
func (m Box) Update(msg tea.Msg) (Box, tea.Cmd) {
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

// Value returns the text, collapsed pastes in full.
func (m Box) Value() string {
	last := len(m.lines) - 1
	return m.between(0, 0, last, len(m.lines[last].runes))
}

// between returns the text from rune c0 of line r0 to rune c1 of line r1, collapsed pastes
// in full.
func (m Box) between(r0, c0, r1, c1 int) string {
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
				b.WriteString(m.pastes[r-pasteRune].Text)
			} else {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// Empty reports whether the box holds no text, without building it.
func (m Box) Empty() bool { return len(m.lines) == 1 && len(m.lines[0].runes) == 0 }

// Short returns the text when it is one line of at most n runes holding no collapsed paste,
// for what reading so short a line costs: a caller looking at it on every key (the slash
// command menu) pays nothing more with a long draft.
func (m Box) Short(n int) (string, bool) {
	if len(m.lines) != 1 || len(m.lines[0].runes) > n || m.held > 0 {
		return "", false
	}
	return string(m.lines[0].runes), true
}

// SetValue replaces the text with s, the cursor at its end.
func (m *Box) SetValue(s string) {
	m.Reset()
	m.insert(sanitizeInput(s, false))
	m.scroll()
}

// Rev returns the text's revision: while it is the same, so is the text.
func (m Box) Rev() int { return m.rev }

// Reset empties the box.
func (m *Box) Reset() {
	m.rev++
	m.lines = []textLine{{}}
	m.row, m.col, m.goal = 0, 0, -1
	m.pastes, m.held = nil, 0
	m.top = rowPos{}
}

// Focus gives the box the focus: keys reach it and the cursor shows.
func (m *Box) Focus() tea.Cmd {
	m.focused = true
	return nil
}

// Blur takes the focus away.
func (m *Box) Blur() { m.focused = false }

// SetStyles sets the styles, those of bubbles' textarea.
func (m *Box) SetStyles(s textarea.Styles) { m.styles = s }
