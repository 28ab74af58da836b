package tui

import (
	"context"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/internal/sanitize"
)

// This file owns /model's list: the endpoint's models, asked for when /model is typed alone,
// narrowed by typing, one chosen with enter for the next messages.

// modelsTimeout bounds asking the endpoint for its models.
const modelsTimeout = 15 * time.Second

// modelPicker is the list of the endpoint's models, drawn in the transcript's place.
type modelPicker struct {
	filterList[string]
}

// modelsMsg carries the endpoint's models, or why they could not be listed.
type modelsMsg struct {
	models []string
	err    error
}

// refilter shows the models whose names contain the query, in order.
func (p *modelPicker) refilter() {
	q := strings.ToLower(p.query)
	p.narrow(func(name string) bool { return strings.Contains(strings.ToLower(name), q) })
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

// handleModels opens the list on the current model.
func (m *Model) handleModels(msg modelsMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		m.setNotice("could not list the models: "+sanitize.String(msg.err.Error())+" (/model NAME sets one)", true)
		return nil
	case len(msg.models) == 0:
		m.setNotice("the endpoint lists no models; /model NAME sets one", true)
		return nil
	}
	m.notice = ""
	m.models = modelPicker{filterList: newFilterList(msg.models, func(name string) bool { return name == m.modelName() })}
	m.openList(focusModels)
	return nil
}

// modelsKey handles a key while the list is open: arrows move, enter chooses, esc closes,
// and typing narrows the list.
func (m *Model) modelsKey(msg tea.KeyPressMsg) tea.Cmd {
	switch name, did := choose(m, &m.models.filterList, msg); did {
	case listChose:
		m.setModel(name)
	case listTyped:
		m.models.refilter()
	}
	return nil
}

// modelsView draws the list in the transcript's place: height lines.
func (m *Model) modelsView(height int) []string {
	st := m.styles
	look := listLook{title: "Models", choose: "use", typing: "type to narrow", query: "filter", none: "no model's name contains "}
	return m.models.view(st, m.keys.Picker, m.width, height, look, func(name string) string {
		row := sanitize.String(name)
		if name == m.modelName() {
			row += st.Muted.Render("  (in use)")
		}
		return row
	})
}
