// Package picker is /sessions: the stored sessions, narrowed as the operator types to those
// whose title holds the words typed or one of whose messages does (history's full-text
// search), one opened with enter, deleted (the screen asks first) or renamed in place.
package picker

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/sanitize"
	"parley/tui/filterlist"
	"parley/tui/keyhelp"
	"parley/tui/overlay"
)

// ID names the picker on the screen's stack of overlays.
const ID = "sessions"

// searchLimit is the most messages one search of the picker reads.
const searchLimit = 500

// Store is what the picker reads and changes of the database.
type Store interface {
	Search(query string, limit int) ([]stored.Hit, error)
	SetTitle(id, title string) error
}

// Keys are the list's, and Delete and Rename, which act on the session under the cursor.
// They are ctrl keys: letters are the search typed in the list.
type Keys struct {
	filterlist.Keys
	Delete, Rename key.Binding
}

// Picker is the session list, drawn in the transcript's place.
type Picker struct {
	list  filterlist.List[stored.Session]
	store Store
	open  string // the open session's id
	// queryGen counts the queries typed; a search for an earlier one is dropped. hits maps
	// each session with a matching message to its best match.
	queryGen int
	hits     map[string]stored.Hit
	// renaming is the session whose title is being typed, "" when none is; title is the
	// title so far.
	renaming, title string
	keys            Keys
	styles          filterlist.Styles
}

// New returns the picker on sessions, the cursor on the open one.
func New(sessions []stored.Session, open string, store Store, keys Keys, styles filterlist.Styles) *Picker {
	list := filterlist.New(sessions, func(s stored.Session) bool { return s.ID == open })
	return &Picker{list: list, store: store, open: open, keys: keys, styles: styles}
}

// Actions the picker asks of the screen.
type (
	// Open is enter on Session: the screen opens it (asking first while a reply is being
	// written). Matched says it was found by a message, Hit, of the search Query.
	Open struct {
		Session stored.Session
		Query   string
		Hit     stored.Hit
		Matched bool
	}
	// Delete is the delete key on Session: the screen asks, and deletes it.
	Delete struct{ Session stored.Session }
	// Say is a line for the status line.
	Say struct {
		Text string
		Err  bool
	}
)

// Searched carries the sessions whose messages match the query numbered gen.
type Searched struct {
	gen  int
	hits map[string]stored.Hit
	err  error
}

// Edited says session ID was deleted, or renamed to Title, or why not (Err).
type Edited struct {
	ID, Title string
	Deleted   bool
	Err       error
}

// ID is the picker's name on the stack.
func (*Picker) ID() string { return ID }

// Shown is the sessions listed now: all of them, or those the query matches.
func (p *Picker) Shown() []stored.Session { return p.list.Kept }

// Cursor is the index in Shown of the session under the cursor.
func (p *Picker) Cursor() int { return p.list.Cursor }

// Query is the search typed.
func (p *Picker) Query() string { return p.list.Query }

// Update takes every key, a search's results and what the screen did to a session.
func (p *Picker) Update(msg tea.Msg) overlay.Action {
	switch msg := msg.(type) {
	case overlay.Size:
		p.list.Update(msg, p.keys.Keys)
	case Searched:
		return p.searched(msg)
	case Edited:
		p.edited(msg)
	case tea.KeyPressMsg:
		if p.renaming != "" {
			return p.renameKey(msg)
		}
		return p.key(msg)
	}
	return nil
}

// key handles a key on the list: delete and rename act on the session under the cursor,
// enter opens it, typing searches.
func (p *Picker) key(msg tea.KeyPressMsg) overlay.Action {
	k := p.keys
	if s, ok := p.list.Current(); ok {
		switch {
		case key.Matches(msg, k.Delete):
			return Delete{Session: s}
		case key.Matches(msg, k.Rename):
			p.renaming, p.title = s.ID, s.Title
			return nil
		}
	}
	switch p.list.Update(msg, k.Keys) {
	case filterlist.Typed:
		return p.search()
	case filterlist.Closed:
		return overlay.Close{}
	case filterlist.Chose:
		s, _ := p.list.Current()
		hit, matched := p.hits[s.ID]
		return Open{Session: s, Query: p.list.Query, Hit: hit, Matched: matched}
	}
	return nil
}

// renameKey handles a key while a session's title is typed: enter stores it, esc keeps the
// title it had, other keys edit it.
func (p *Picker) renameKey(msg tea.KeyPressMsg) overlay.Action {
	switch {
	case key.Matches(msg, p.keys.Close):
		p.renaming = ""
	case key.Matches(msg, p.keys.Choose):
		id, title := p.renaming, p.title
		p.renaming = ""
		if title == "" {
			return Say{Text: "a title needs a word: the session keeps its own", Err: true}
		}
		store := p.store
		return tea.Cmd(func() tea.Msg { return Edited{ID: id, Title: title, Err: store.SetTitle(id, title)} })
	default:
		if t, ok := filterlist.EditQuery(p.title, msg); ok {
			p.title = t
		}
	}
	return nil
}

// refilter lists the sessions whose title holds the words of the query, or whose messages
// matched it.
func (p *Picker) refilter() {
	words := strings.Fields(strings.ToLower(p.list.Query))
	p.list.Narrow(func(s stored.Session) bool {
		title := strings.ToLower(s.Title)
		inTitle := true
		for _, w := range words {
			inTitle = inTitle && strings.Contains(title, w)
		}
		_, hit := p.hits[s.ID]
		return inTitle || hit
	})
}

// search searches the sessions' messages for the query just typed, in a command.
func (p *Picker) search() overlay.Action {
	p.hits = nil
	p.refilter()
	p.queryGen++
	q := p.list.Query
	if strings.TrimSpace(q) == "" {
		return nil
	}
	store, gen := p.store, p.queryGen
	return tea.Cmd(func() tea.Msg {
		found, err := store.Search(q, searchLimit)
		hits := map[string]stored.Hit{}
		for _, h := range found {
			if _, seen := hits[h.SessionID]; !seen {
				hits[h.SessionID] = h
			}
		}
		return Searched{gen: gen, hits: hits, err: err}
	})
}

// searched narrows the list to the search's sessions, if its query is still the one typed.
func (p *Picker) searched(msg Searched) overlay.Action {
	if msg.gen != p.queryGen {
		return nil
	}
	if msg.err != nil {
		return Say{Text: "could not search the sessions: " + msg.err.Error(), Err: true}
	}
	p.hits = msg.hits
	p.refilter()
	p.list.Cursor = min(p.list.Cursor, max(0, len(p.list.Kept)-1))
	return nil
}

// edited shows a session deleted or renamed.
func (p *Picker) edited(msg Edited) {
	if msg.Err != nil {
		return
	}
	i := slices.IndexFunc(p.list.Items, func(s stored.Session) bool { return s.ID == msg.ID })
	switch {
	case i < 0:
	case msg.Deleted:
		p.list.Items = slices.Delete(p.list.Items, i, i+1)
	default:
		p.list.Items[i].Title = msg.Title
	}
	p.refilter()
	p.list.Cursor = max(0, min(p.list.Cursor, len(p.list.Kept)-1))
}

// View draws the session list in the transcript's place: height lines.
func (p *Picker) View(width, height int) []string {
	st, k := p.styles, p.keys
	look := filterlist.Look{Title: "Sessions", Choose: "open", Typing: "type to search", Query: "search", None: "no session's title or messages hold ",
		More: []key.Binding{k.Delete, k.Rename}}
	if p.renaming != "" {
		look.Heading = st.Title.Render("Rename: ") + sanitize.String(p.title) + "▏" +
			st.Muted.Render("  "+keyhelp.Hint(keyhelp.Relabel(k.Choose, "saves"), keyhelp.Relabel(k.Close, "keeps the title")))
	}
	room := max(0, width-2)
	return p.list.View(st, k.Keys, width, height, look, func(s stored.Session) string {
		row := fmt.Sprintf("%s  %s  %d messages  %s", chat.FormatDate(s.UpdatedAt),
			sanitize.String(Title(s)), s.Messages, shortID(s.ID))
		if e := p.excerpt(s.ID, room); e != "" {
			// The words that matched come first: a narrow screen cuts the rest, not them.
			row = e + st.Muted.Render("  · "+row)
		}
		return ansi.Truncate(row, room, "…")
	})
}

// Help is the picker's keys: enter opens, esc closes.
func (p *Picker) Help() []key.Binding { return []key.Binding{p.keys.Choose, p.keys.Close} }

// Title is how the picker names session s.
func Title(s stored.Session) string {
	if s.Title == "" {
		return "(empty)"
	}
	return s.Title
}

// shortID is the first characters of a session id, enough to tell sessions apart.
func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// The marks of a match while an excerpt is made safe to show: sanitizing drops the control
// characters history marks matches with, and keeps these (private use) characters.
const (
	markStart = "\ue000"
	markEnd   = "\ue001"
)

// excerpt is the best match in session id's messages on one line of at most width cells, the
// matched words bold and the words before the first match cut short so that it shows; empty
// when the session matched by its title alone.
func (p *Picker) excerpt(id string, width int) string {
	h, ok := p.hits[id]
	if !ok || width <= 0 {
		return ""
	}
	e := strings.NewReplacer(markStart, "", markEnd, "").Replace(h.Excerpt)
	e = strings.NewReplacer(stored.HitStart, markStart, stored.HitEnd, markEnd).Replace(e)
	e = strings.Join(strings.Fields(sanitize.String(e)), " ")
	if before, _, found := strings.Cut(e, markStart); found {
		if r := []rune(before); len(r) > width/3 {
			e = "…" + string(r[len(r)-width/3:]) + e[len(before):]
		}
	}
	var b strings.Builder
	for i, part := range strings.Split(e, markStart) {
		if i == 0 {
			b.WriteString(part)
			continue
		}
		match, rest, _ := strings.Cut(part, markEnd)
		b.WriteString(p.styles.Title.Render(match) + rest)
	}
	return ansi.Truncate(b.String(), width, "…")
}
