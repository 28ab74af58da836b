package tui

import (
	"context"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"parley/internal/sanitize"
	"parley/tui/keyhelp"
)

// This file owns the lists drawn in the transcript's place and narrowed by typing: /model's
// models and /sessions' picker each keep one, and say which items a query keeps, how an item
// shows and what choosing one does.

// filterList is a list narrowed by the query typed into it, with a cursor on one of the items
// it shows.
type filterList[T any] struct {
	items []T
	query string
	// kept is the items the query keeps, found again by narrow when the query or what it
	// matches changes: a key or a frame costs the rows drawn, not the items.
	kept   []T
	cursor int // an index in kept
}

// newFilterList returns a list of items, all shown, the cursor on the one current reports.
func newFilterList[T any](items []T, current func(T) bool) filterList[T] {
	l := filterList[T]{items: items, kept: items}
	for i, it := range items {
		if current(it) {
			l.cursor = i
		}
	}
	return l
}

// narrow shows the items keep reports for the query, or all of them while it is empty.
func (l *filterList[T]) narrow(keep func(T) bool) {
	if l.query == "" {
		l.kept = l.items
		return
	}
	l.kept = nil
	for _, it := range l.items {
		if keep(it) {
			l.kept = append(l.kept, it)
		}
	}
}

// fetchItems returns a command that gets a list's items off the event loop, f given at most
// timeout: /model asks the endpoint for its models, /tools starts the servers.
func fetchItems(timeout time.Duration, f func(context.Context) tea.Msg) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		return f(ctx)
	}
}

// narrowFold shows the items whose text holds the query, whatever the case of either.
func (l *filterList[T]) narrowFold(text func(T) string) {
	q := strings.ToLower(l.query)
	l.narrow(func(it T) bool { return strings.Contains(strings.ToLower(text(it)), q) })
}

// openList gives the focus to the list just made, of models (focusModels) or of sessions
// (focusPicker).
func (m *Model) openList(f focus) {
	m.focus = f
	m.input.Blur()
}

// closeList closes the list that is open, of models or of sessions, and gives the focus back
// to the input.
func (m *Model) closeList() {
	m.picker = picker{}
	m.focus = focusInput
	m.input.Focus()
}

// listKey is what a key did to a list.
type listKey int

const (
	listMoved  listKey = iota // the cursor moved, or the key is none of the list's
	listChose                 // the item under the cursor is chosen
	listClosed                // the list is to be closed
	listTyped                 // the query changed, and the cursor went back to the top
)

// choose applies a key to list l for m: arrows move the cursor, text or backspace edits the
// query (the caller narrows the list again), esc closes the list, and enter closes it choosing
// the item under the cursor, which it returns. Enter with nothing shown does nothing: the query
// can be mended.
func choose[T any](m *Model, l *filterList[T], msg tea.KeyPressMsg) (T, listKey) {
	var chosen T
	did := l.key(msg, m.keys.Picker, len(l.kept), max(1, m.transcript.Height()-3))
	switch {
	case did == listChose && len(l.kept) == 0:
		did = listMoved
	case did == listChose:
		chosen = l.kept[l.cursor]
		m.closeList()
	case did == listClosed:
		m.closeList()
	}
	return chosen, did
}

// key applies a key to the list, which shows n items, page of them on a screen: arrows and the
// paging keys move the cursor, and text or backspace edits the query.
func (l *filterList[T]) key(msg tea.KeyPressMsg, k PickerKeys, n, page int) listKey {
	switch {
	case key.Matches(msg, k.Up):
		l.cursor = max(0, l.cursor-1)
	case key.Matches(msg, k.Down):
		l.cursor = max(0, min(n-1, l.cursor+1))
	case key.Matches(msg, k.PageUp):
		l.cursor = max(0, l.cursor-page)
	case key.Matches(msg, k.PageDown):
		l.cursor = max(0, min(n-1, l.cursor+page))
	case key.Matches(msg, k.Top):
		l.cursor = 0
	case key.Matches(msg, k.Bottom):
		l.cursor = max(0, n-1)
	case key.Matches(msg, k.Choose):
		return listChose
	case key.Matches(msg, k.Close):
		return listClosed
	default:
		if q, ok := editQuery(l.query, msg); ok {
			l.query, l.cursor = q, 0
			return listTyped
		}
	}
	return listMoved
}

// editQuery applies a key typed in a list's query: text is added, backspace takes the last
// character away. It reports whether the key was one of those.
func editQuery(q string, msg tea.KeyPressMsg) (string, bool) {
	switch {
	case msg.String() == "backspace":
		r := []rune(q)
		return string(r[:max(0, len(r)-1)]), true
	case msg.Text != "" && msg.Mod&(tea.ModCtrl|tea.ModAlt|tea.ModMeta|tea.ModSuper|tea.ModHyper) == 0:
		return q + msg.Text, true
	}
	return q, false
}

// listLook is how a list is drawn: its title, what choosing does, what typing does, what the
// query is called, and what is said before the query when nothing is shown; more are keys the
// heading names besides, and heading, when set, is drawn instead of the heading.
type listLook struct {
	title, choose, typing, query, none string
	more                               []key.Binding
	heading                            string
}

// view draws the list in the transcript's place: height lines, the heading and then the rows
// of the items shown around the cursor.
func (l *filterList[T]) view(st *theme, k PickerKeys, width, height int, look listLook, row func(T) string) []string {
	shown := l.kept
	keys := append([]key.Binding{keyhelp.Joined(k.Up, k.Down), keyhelp.Relabel(k.Choose, look.choose)}, look.more...)
	heading := st.ReplyLabel.Render(look.title) + st.Muted.Render("  "+keyhelp.Hint(append(keys, k.Close)...)+" · "+look.typing)
	if l.query != "" {
		heading += st.Muted.Render("  "+look.query+": ") + sanitize.String(l.query)
	}
	if look.heading != "" {
		heading = look.heading
	}
	lines := []string{ansi.Truncate(heading, width, "…"), ""}
	if len(shown) == 0 {
		lines = append(lines, st.Muted.Render("  "+look.none+sanitize.String(l.query)))
	}
	rows := max(1, height-len(lines))
	first := max(0, min(l.cursor-rows/2, len(shown)-rows))
	for i := first; i < len(shown) && len(lines) < height; i++ {
		if i == l.cursor {
			lines = append(lines, st.PickerFocus.Render("› "+row(shown[i])))
		} else {
			lines = append(lines, st.PickerItem.Render(row(shown[i])))
		}
	}
	for len(lines) < height {
		lines = append(lines, "")
	}
	return lines[:height]
}
