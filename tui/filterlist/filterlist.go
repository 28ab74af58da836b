// Package filterlist is a list drawn in the transcript's place and narrowed by typing: the
// session picker, /model's list and /tools keep one each, and say which items a query keeps,
// how an item shows and what choosing one does.
package filterlist

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"parley/internal/sanitize"
	"parley/tui/keyhelp"
	"parley/tui/overlay"
)

// Keys move through a list (a line, a page, or to either end), choose the item under the
// cursor and close the list. Letters are the query typed, so only arrows move.
type Keys struct {
	Up, Down         key.Binding
	PageUp, PageDown key.Binding
	Top, Bottom      key.Binding
	Choose, Close    key.Binding
}

// Styles are what a list is drawn with.
type Styles struct {
	Title lipgloss.Style // the list's name in its heading
	Muted lipgloss.Style // the heading's keys, notes
	Item  lipgloss.Style // a row
	Focus lipgloss.Style // the row under the cursor
}

// List is a list narrowed by the query typed into it, with a cursor on one of the items it
// shows.
type List[T any] struct {
	Items []T
	Query string
	// Kept is the items the query keeps, found again by Narrow when the query or what it
	// matches changes: a key or a frame costs the rows drawn, not the items.
	Kept   []T
	Cursor int // an index in Kept
	height int // the lines the screen gives the list, for paging
}

// New returns a list of items, all shown, the cursor on the one current reports.
func New[T any](items []T, current func(T) bool) List[T] {
	l := List[T]{Items: items, Kept: items}
	for i, it := range items {
		if current(it) {
			l.Cursor = i
		}
	}
	return l
}

// Narrow shows the items keep reports for the query, or all of them while it is empty.
func (l *List[T]) Narrow(keep func(T) bool) {
	if l.Query == "" {
		l.Kept = l.Items
		return
	}
	l.Kept = nil
	for _, it := range l.Items {
		if keep(it) {
			l.Kept = append(l.Kept, it)
		}
	}
}

// NarrowFold shows the items whose text holds the query, whatever the case of either.
func (l *List[T]) NarrowFold(text func(T) string) {
	q := strings.ToLower(l.Query)
	l.Narrow(func(it T) bool { return strings.Contains(strings.ToLower(text(it)), q) })
}

// Current is the item under the cursor; ok is false when the list shows none.
func (l *List[T]) Current() (it T, ok bool) {
	if len(l.Kept) == 0 {
		return it, false
	}
	return l.Kept[l.Cursor], true
}

// Did is what a key did to a list.
type Did int

const (
	Moved  Did = iota // the cursor moved, or the key is none of the list's
	Chose             // the item under the cursor is chosen (there is one)
	Closed            // the list is to be closed
	Typed             // the query changed, and the cursor went back to the top: narrow again
)

// Update applies what the screen sends a list on its stack: the room it is given
// (overlay.Size), which sets how far a page moves, and keys (Key). Anything else is Moved.
func (l *List[T]) Update(msg tea.Msg, k Keys) Did {
	switch msg := msg.(type) {
	case overlay.Size:
		l.height = msg.Height
	case tea.KeyPressMsg:
		return l.Key(msg, k, Page(l.height))
	}
	return Moved
}

// Key applies a key to the list, page items to a screen: arrows and the paging keys move the
// cursor, and text or backspace edits the query. Enter with nothing shown does nothing: the
// query can be mended.
func (l *List[T]) Key(msg tea.KeyPressMsg, k Keys, page int) Did {
	n := len(l.Kept)
	switch {
	case key.Matches(msg, k.Up):
		l.Cursor = max(0, l.Cursor-1)
	case key.Matches(msg, k.Down):
		l.Cursor = max(0, min(n-1, l.Cursor+1))
	case key.Matches(msg, k.PageUp):
		l.Cursor = max(0, l.Cursor-page)
	case key.Matches(msg, k.PageDown):
		l.Cursor = max(0, min(n-1, l.Cursor+page))
	case key.Matches(msg, k.Top):
		l.Cursor = 0
	case key.Matches(msg, k.Bottom):
		l.Cursor = max(0, n-1)
	case key.Matches(msg, k.Choose):
		if n > 0 {
			return Chose
		}
	case key.Matches(msg, k.Close):
		return Closed
	default:
		if q, ok := EditQuery(l.Query, msg); ok {
			l.Query, l.Cursor = q, 0
			return Typed
		}
	}
	return Moved
}

// Page is how many rows a list height lines high moves by a page: its heading takes two, and
// one row stays in view.
func Page(height int) int { return max(1, height-3) }

// EditQuery applies a key typed in a list's query: text is added, backspace takes the last
// character away. It reports whether the key was one of those.
func EditQuery(q string, msg tea.KeyPressMsg) (string, bool) {
	switch {
	case msg.String() == "backspace":
		r := []rune(q)
		return string(r[:max(0, len(r)-1)]), true
	case msg.Text != "" && msg.Mod&(tea.ModCtrl|tea.ModAlt|tea.ModMeta|tea.ModSuper|tea.ModHyper) == 0:
		return q + msg.Text, true
	}
	return q, false
}

// Look is how a list is drawn: its title, what choosing does, what typing does, what the query
// is called, and what is said before the query when nothing is shown; More are keys the
// heading names besides, and Heading, when set, is drawn instead of the heading.
type Look struct {
	Title, Choose, Typing, Query, None string
	More                               []key.Binding
	Heading                            string
}

// Help is the list's keys for the help line: choosing, named as look says, and closing.
func Help(k Keys, look Look) []key.Binding {
	return []key.Binding{keyhelp.Relabel(k.Choose, look.Choose), k.Close}
}

// View draws the list in the transcript's place: height lines, the heading and then the rows
// of the items shown around the cursor.
func (l *List[T]) View(st Styles, k Keys, width, height int, look Look, row func(T) string) []string {
	shown := l.Kept
	keys := append([]key.Binding{keyhelp.Joined(k.Up, k.Down), keyhelp.Relabel(k.Choose, look.Choose)}, look.More...)
	heading := st.Title.Render(look.Title) + st.Muted.Render("  "+keyhelp.Hint(append(keys, k.Close)...)+" · "+look.Typing)
	if l.Query != "" {
		heading += st.Muted.Render("  "+look.Query+": ") + sanitize.String(l.Query)
	}
	if look.Heading != "" {
		heading = look.Heading
	}
	lines := []string{ansi.Truncate(heading, width, "…"), ""}
	if len(shown) == 0 {
		lines = append(lines, st.Muted.Render("  "+look.None+sanitize.String(l.Query)))
	}
	rows := max(1, height-len(lines))
	first := max(0, min(l.Cursor-rows/2, len(shown)-rows))
	for i := first; i < len(shown) && len(lines) < height; i++ {
		if i == l.Cursor {
			lines = append(lines, st.Focus.Render("› "+row(shown[i])))
		} else {
			lines = append(lines, st.Item.Render(row(shown[i])))
		}
	}
	for len(lines) < height {
		lines = append(lines, "")
	}
	return lines[:height]
}
