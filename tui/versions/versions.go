// Package versions is the version view, opened with [ and ] on a reply: the versions of one
// reply, oldest first, in the transcript's place. A superseded version is shown with the turns
// it went on with, under a table that sets every version's model, tokens, cost, time to its
// first word and duration side by side; y copies the version shown and enter restores it,
// which the screen does (Copy, Restore).
package versions

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"parley/agent"
	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/sanitize"
	"parley/internal/wrap"
	"parley/tui/keyhelp"
	"parley/tui/overlay"
	"parley/tui/transcript"
)

// ID names the view on the screen's stack of overlays.
const ID = "versions"

// wheelLines is how far one step of the mouse wheel scrolls.
const wheelLines = 3

// Keys move between versions, scroll the one shown, copy or restore it, and close the view.
type Keys struct {
	Older      key.Binding
	Newer      key.Binding
	Copy       key.Binding
	Restore    key.Binding // makes the version shown the live one
	ScrollUp   key.Binding
	ScrollDown key.Binding
	PageUp     key.Binding
	PageDown   key.Binding
	Close      key.Binding
}

// Styles are what the view is drawn with: its title and table, and the transcript's.
type Styles struct {
	Title, Muted lipgloss.Style
	Transcript   transcript.Styles
}

// Read is what the screen read of one reply's versions.
type Read struct {
	// List is the versions, oldest first; Carried the turns each superseded one went on with,
	// by id; Questions the earlier texts of the question (an edit) versions answer, by id.
	List      []stored.Message
	Carried   map[int64][]stored.Message
	Questions map[int64]stored.Message
}

// Copy asks the screen to copy Text, which is What ("version 2").
type Copy struct{ Text, What string }

// Restore asks the screen to make version ID, number Number, the live reply.
type Restore struct {
	ID     int64
	Number int
}

// View is the version view.
type View struct {
	read   Read
	shown  int // the index in read.List of the version shown
	keys   Keys
	styles Styles
	prices agent.Prices
	view   *transcript.List
	width  int
	height int
}

// New returns the view of r on version shown, set like the transcript: its reading width and
// background. prices price the table's costs.
func New(r Read, shown int, keys Keys, styles Styles, prices agent.Prices, readingWidth int, dark bool) *View {
	v := &View{read: r, keys: keys, styles: styles, prices: prices, view: transcript.New(styles.Transcript)}
	v.view.HideNumbers()
	v.view.SetDark(dark)
	v.view.SetReadingWidth(readingWidth)
	v.show(shown)
	return v
}

// SetStyles redraws the view with st, the terminal's background having changed.
func (v *View) SetStyles(st Styles) {
	v.styles = st
	v.view.SetStyles(st.Transcript)
}

// ID is the view's name on the stack.
func (*View) ID() string { return ID }

// show shows version i, or the nearest there is, and the turns it went on with.
func (v *View) show(i int) {
	v.shown = max(0, min(i, len(v.read.List)-1))
	version := v.read.List[v.shown]
	shown := append([]stored.Message{version}, v.read.Carried[version.ID]...)
	if q, ok := v.read.Questions[version.AnchorID]; ok {
		shown = append([]stored.Message{q}, shown...)
	}
	v.view.Reset(shown)
	v.view.GotoTop()
	v.keys.Restore.SetEnabled(version.Superseded)
	v.resize() // the title may take another number of lines
}

// resize gives the version what the title leaves of the view's place.
func (v *View) resize() {
	if v.width > 0 {
		v.view.SetSize(v.width, max(v.height-len(v.title()), 1))
	}
}

// Update takes every key while the view is in front: its own act, any other does nothing.
// The wheel scrolls the version shown.
func (v *View) Update(msg tea.Msg) overlay.Action {
	switch msg := msg.(type) {
	case overlay.Size:
		v.width, v.height = msg.Width, msg.Height
		v.resize()
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			v.view.ScrollUp(wheelLines)
		case tea.MouseWheelDown:
			v.view.ScrollDown(wheelLines)
		}
	case tea.KeyPressMsg:
		k, page := v.keys, max(1, v.view.Height()-1)
		switch {
		case key.Matches(msg, k.Older):
			v.show(v.shown - 1)
		case key.Matches(msg, k.Newer):
			v.show(v.shown + 1)
		case key.Matches(msg, k.ScrollUp):
			v.view.ScrollUp(1)
		case key.Matches(msg, k.ScrollDown):
			v.view.ScrollDown(1)
		case key.Matches(msg, k.PageUp):
			v.view.ScrollUp(page)
		case key.Matches(msg, k.PageDown):
			v.view.ScrollDown(page)
		case key.Matches(msg, k.Copy):
			id := v.read.List[v.shown].ID
			return Copy{Text: v.view.Text(id), What: fmt.Sprintf("version %d", v.shown+1)}
		case key.Matches(msg, k.Restore):
			return Restore{ID: v.read.List[v.shown].ID, Number: v.shown + 1}
		case key.Matches(msg, k.Close):
			return overlay.Close{}
		}
	}
	return nil
}

// View draws the view in the transcript's place: a title, then the version and the turns it
// went on with, as the transcript would show them.
func (v *View) View(int, int) []string {
	return append(v.title(), v.view.View()...)
}

// Help is the keys the help line names while the view is open.
func (v *View) Help() []key.Binding {
	return []key.Binding{v.keys.Copy, v.keys.Restore, v.keys.Close}
}

// title is the view's title, wrapped to the width: which version, whether it is live, the
// keys, and the table of versions.
func (v *View) title() []string {
	st, k := v.styles, v.keys
	version := v.read.List[v.shown]
	state := " · live"
	if version.Superseded {
		state = " · superseded"
		if n := len(v.read.Carried[version.ID]); n > 0 {
			state += fmt.Sprintf(", with the %s after it", chat.Plural(n, "message"))
		}
	}
	bindings := []key.Binding{k.Older, k.Newer, k.Copy}
	if k.Restore.Enabled() {
		bindings = append(bindings, k.Restore)
	}
	bindings = append(bindings, k.Close)
	title, keys := fmt.Sprintf("Version %d/%d%s", v.shown+1, len(v.read.List), state), keyhelp.Hint(bindings...)
	if lipgloss.Width(title)+2+lipgloss.Width(keys) <= v.width {
		return append([]string{st.Title.Render(title) + st.Muted.Render("  "+keys)}, v.table()...)
	}
	var lines []string
	for _, l := range wrap.Lines(title, v.width) {
		lines = append(lines, st.Title.Render(l))
	}
	for _, l := range wrap.Lines(keys, v.width) {
		lines = append(lines, st.Muted.Render(l))
	}
	return append(lines, v.table()...)
}

// table sets the versions side by side, one line each, the one shown marked, the live one
// said, each cut to the width.
func (v *View) table() []string {
	st := v.styles
	rows := [][]string{{"", "#", "model", "tokens", "cost", "first word", "took", ""}}
	for i, ver := range v.read.List {
		mark, state := " ", ""
		if i == v.shown {
			mark = "▸"
		}
		if !ver.Superseded {
			state = "live"
		}
		rows = append(rows, []string{mark, fmt.Sprint(i + 1), sanitize.String(transcript.ModelName(ver.Model)),
			tokensOut(ver.Usage), v.cost(ver), seconds(ver.FirstWord), seconds(ver.Took), state})
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for c, cell := range r {
			widths[c] = max(widths[c], lipgloss.Width(cell))
		}
	}
	var out []string
	for i, r := range rows {
		var b strings.Builder
		for c, cell := range r {
			b.WriteString(cell + strings.Repeat(" ", widths[c]-lipgloss.Width(cell)+2))
		}
		line := ansi.Truncate(strings.TrimRight(b.String(), " "), v.width, "…")
		switch {
		case i == 0:
			line = st.Muted.Render(line)
		case i-1 == v.shown:
			line = st.Title.Render(line)
		}
		out = append(out, line)
	}
	return out
}

// cost is what a version cost at the view's prices, "—" when its model has none.
func (v *View) cost(ver stored.Message) string {
	if c := v.prices.Of(ver.Model).Cost(ver.Usage); c > 0 {
		return chat.FormatCost(c)
	}
	return "—"
}

// tokensOut is a version's output tokens, "—" when its endpoint said none.
func tokensOut(u chat.Usage) string {
	if u.CompletionTokens == 0 {
		return "—"
	}
	return chat.FormatTokens(u.CompletionTokens) + " out"
}

// seconds writes a duration to a tenth of a second, "—" for none.
func seconds(d time.Duration) string {
	if d <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}

// Quota gives the view n of rendering for the message being handled (a frame's quota).
func (v *View) Quota(n int) { v.view.Quota(n) }

// Refresh lets the view render again what changed or is unfinished.
func (v *View) Refresh() { v.view.Refresh() }

// Prepare renders what the view shows, within its quota, and reports whether that left a
// render unfinished.
func (v *View) Prepare() (unfinished bool) {
	v.view.Prepare()
	return v.view.Unfinished()
}
