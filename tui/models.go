package tui

import (
	"context"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"parley/tui/sanitize"
)

// This file owns /model's list: the endpoint's models, asked for when /model is typed alone,
// narrowed by typing, one chosen with enter for the next messages.

// modelsTimeout bounds asking the endpoint for its models.
const modelsTimeout = 15 * time.Second

// modelPicker is the list of the endpoint's models, drawn in the transcript's place.
type modelPicker struct {
	all []string
	// query narrows the list to the names that contain it; cursor is an index in shown().
	query  string
	cursor int
}

// modelsMsg carries the endpoint's models, or why they could not be listed.
type modelsMsg struct {
	models []string
	err    error
}

// shown returns the models whose names contain the query, in order.
func (p *modelPicker) shown() []string {
	if p.query == "" {
		return p.all
	}
	var out []string
	q := strings.ToLower(p.query)
	for _, name := range p.all {
		if strings.Contains(strings.ToLower(name), q) {
			out = append(out, name)
		}
	}
	return out
}

// listModels asks the endpoint for its models, to open the list on them (/model alone).
func (m *Model) listModels() tea.Cmd {
	if m.client == nil {
		m.setNotice("no endpoint to list the models of", true)
		return nil
	}
	client := m.client
	m.setNotice("asking the endpoint for its models…", false)
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), modelsTimeout)
		defer cancel()
		models, err := client.Models(ctx)
		return modelsMsg{models: models, err: err}
	}
}

// handle opens the list on the current model.
func (msg modelsMsg) handle(m *Model) tea.Cmd {
	switch {
	case msg.err != nil:
		m.setNotice("could not list the models: "+sanitize.String(msg.err.Error())+" (/model NAME sets one)", true)
		return nil
	case len(msg.models) == 0:
		m.setNotice("the endpoint lists no models; /model NAME sets one", true)
		return nil
	}
	m.notice = ""
	m.models = modelPicker{all: msg.models}
	for i, name := range msg.models {
		if name == m.modelName() {
			m.models.cursor = i
		}
	}
	m.focus = focusModels
	m.input.Blur()
	return nil
}

// modelsKey handles a key while the list is open: arrows move, enter chooses, esc closes,
// and typing narrows the list.
func (m *Model) modelsKey(msg tea.KeyPressMsg) tea.Cmd {
	p, k := &m.models, m.keys.Picker
	shown := p.shown()
	switch {
	case key.Matches(msg, k.Up):
		p.cursor = max(0, p.cursor-1)
	case key.Matches(msg, k.Down):
		p.cursor = max(0, min(len(shown)-1, p.cursor+1))
	case key.Matches(msg, k.Choose):
		if len(shown) > 0 {
			m.setModel(shown[p.cursor])
		}
		m.closeModels()
	case key.Matches(msg, k.Close):
		m.closeModels()
	default:
		if q, ok := editQuery(p.query, msg); ok {
			p.query, p.cursor = q, 0
		}
	}
	return nil
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

// closeModels gives the focus back to the input.
func (m *Model) closeModels() {
	m.models = modelPicker{}
	m.focus = focusInput
	m.input.Focus()
}

// modelsView draws the list in the transcript's place: height lines.
func (m *Model) modelsView(height int) []string {
	st, k, p := m.styles, m.keys.Picker, &m.models
	heading := st.ReplyLabel.Render("Models") + st.Muted.Render("  "+hint(joined(k.Up, k.Down), relabel(k.Choose, "use"), k.Close)+" · type to narrow")
	if p.query != "" {
		heading += st.Muted.Render("  filter: ") + sanitize.String(p.query)
	}
	lines := []string{ansi.Truncate(heading, m.width, "…"), ""}
	shown := p.shown()
	if len(shown) == 0 {
		lines = append(lines, st.Muted.Render("  no model's name contains "+sanitize.String(p.query)))
	}
	rows := max(1, height-len(lines))
	first := max(0, min(p.cursor-rows/2, len(shown)-rows))
	for i := first; i < len(shown) && len(lines) < height; i++ {
		row := sanitize.String(shown[i])
		if shown[i] == m.modelName() {
			row += st.Muted.Render("  (in use)")
		}
		if i == p.cursor {
			lines = append(lines, st.PickerFocus.Render("› "+row))
		} else {
			lines = append(lines, st.PickerItem.Render(row))
		}
	}
	for len(lines) < height {
		lines = append(lines, "")
	}
	return lines[:height]
}
