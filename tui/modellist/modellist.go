// Package modellist is /model's list: the endpoint's models, narrowed by typing, one chosen
// with enter for the next messages. R opens the same list to run a reply again elsewhere, with
// the other profiles above the endpoint's models.
package modellist

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"parley/agent"
	"parley/internal/sanitize"
	"parley/tui/filterlist"
	"parley/tui/keyhelp"
	"parley/tui/overlay"
	"parley/tui/transcript"
)

// ID names the list on the screen's stack of overlays.
const ID = "models"

// Choice is one row of the list: a model of the endpoint in use, or another profile's
// endpoint (Client set), named by the profile.
type Choice struct {
	Model, Profile string
	Client         *agent.Client
}

// Label is how the choice shows, and what the query narrows.
func (c Choice) Label() string {
	if c.Profile != "" {
		return "profile " + c.Profile + " · " + transcript.ModelName(c.Model)
	}
	return c.Model
}

// List is the list of models. Compare is the reply R runs again on the choice; 0 for /model,
// whose choice is the model of the next messages.
type List struct {
	list    filterlist.List[Choice]
	compare int64
	inUse   string
	keys    filterlist.Keys
	styles  filterlist.Styles
}

// Chosen is a choice made with enter, for the reply Compare (0: for the next messages).
type Chosen struct {
	Choice  Choice
	Compare int64
}

// New returns the list of choices, the cursor on the model inUse, for reply compare (0: /model).
func New(choices []Choice, inUse string, compare int64, keys filterlist.Keys, styles filterlist.Styles) *List {
	current := func(c Choice) bool { return c.Client == nil && c.Model == inUse }
	return &List{list: filterlist.New(choices, current), compare: compare, inUse: inUse, keys: keys, styles: styles}
}

// ID is the list's name on the stack.
func (*List) ID() string { return ID }

// Update takes every key: arrows move, enter chooses, esc closes, and typing narrows.
func (l *List) Update(msg tea.Msg) overlay.Action {
	switch l.list.Update(msg, l.keys) {
	case filterlist.Chose:
		c, _ := l.list.Current()
		return Chosen{Choice: c, Compare: l.compare}
	case filterlist.Closed:
		return overlay.Close{}
	case filterlist.Typed:
		l.list.NarrowFold(Choice.Label)
	}
	return nil
}

// View draws the list in the transcript's place: height lines.
func (l *List) View(width, height int) []string {
	look := filterlist.Look{Title: "Models", Choose: "use", Typing: "type to narrow", Query: "filter", None: "no model's name contains "}
	if l.compare != 0 {
		look.Title, look.Choose = "Run the reply again on", "run"
	}
	return l.list.View(l.styles, l.keys, width, height, look, func(c Choice) string {
		row := sanitize.String(c.Label())
		if c.Client == nil && c.Model == l.inUse {
			row += l.styles.Muted.Render("  (in use)")
		}
		return row
	})
}

// Help is the list's keys: enter uses the model, esc closes.
func (l *List) Help() []key.Binding {
	return []key.Binding{keyhelp.Relabel(l.keys.Choose, "use model"), l.keys.Close}
}
