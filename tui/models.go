package tui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/agent"
	"parley/internal/sanitize"
	"parley/tui/transcript"
)

// This file owns /model's list: the endpoint's models, asked for when /model is typed alone,
// narrowed by typing, one chosen with enter for the next messages. R opens the same list to run
// a reply again elsewhere, with the other profiles above the endpoint's models: the new version
// then stands beside the old in the version view.

// modelsTimeout bounds asking the endpoint for its models.
const modelsTimeout = 15 * time.Second

// modelPicker is the list of models, drawn in the transcript's place. compare is the reply R
// runs again on the choice; 0 for /model, whose choice is the model of the next messages.
type modelPicker struct {
	filterList[modelChoice]
	compare int64
}

// modelChoice is one row of the list: a model of the endpoint in use, or another profile's
// endpoint (client set), named by the profile.
type modelChoice struct {
	model, profile string
	client         *agent.Client
}

// label is how the choice shows, and what the query narrows.
func (c modelChoice) label() string {
	if c.profile != "" {
		return "profile " + c.profile + " · " + transcript.ModelName(c.model)
	}
	return c.model
}

// modelsMsg carries the endpoint's models, or why they could not be listed; compare is the
// reply R asked them for, 0 for /model.
type modelsMsg struct {
	models  []string
	compare int64
	err     error
}

// refilter shows the models whose names contain the query, in order.
func (p *modelPicker) refilter() {
	p.narrowFold(modelChoice.label)
}

// listModels asks the endpoint for its models, to open the list on them: for /model alone
// (compare 0), or for R on reply compare.
func (m *Model) listModels(compare int64) tea.Cmd {
	if m.client == nil {
		m.setNotice("no endpoint to list the models of", true)
		return nil
	}
	client := m.client
	m.setNotice("asking the endpoint for its models…", false)
	return fetchItems(modelsTimeout, func(ctx context.Context) tea.Msg {
		models, err := client.Models(ctx)
		return modelsMsg{models: models, compare: compare, err: err}
	})
}

// handleModels opens the list on the current model; for R, with the other profiles first,
// and on them alone when the endpoint lists no models.
func (m *Model) handleModels(msg modelsMsg) tea.Cmd {
	var choices []modelChoice
	if msg.compare != 0 {
		for _, c := range m.others {
			choices = append(choices, modelChoice{model: c.Endpoint().Model, profile: c.Endpoint().Name, client: c})
		}
	}
	for _, name := range msg.models {
		choices = append(choices, modelChoice{model: name})
	}
	switch {
	case len(choices) == 0 && msg.err != nil:
		m.setNotice("could not list the models: "+sanitize.String(msg.err.Error())+" (/model NAME sets one)", true)
		return nil
	case len(choices) == 0:
		m.setNotice("the endpoint lists no models; /model NAME sets one", true)
		return nil
	}
	m.notice = ""
	current := func(c modelChoice) bool { return c.client == nil && c.model == m.modelName() }
	m.models = modelPicker{filterList: newFilterList(choices, current), compare: msg.compare}
	m.openList(focusModels)
	return nil
}

// modelsKey handles a key while the list is open: arrows move, enter chooses, esc closes,
// and typing narrows the list.
func (m *Model) modelsKey(msg tea.KeyPressMsg) tea.Cmd {
	compare := m.models.compare
	switch c, did := choose(m, &m.models.filterList, msg); did {
	case listChose:
		if compare != 0 {
			return m.compareOn(compare, c)
		}
		m.setModel(c.model)
	case listTyped:
		m.models.refilter()
	}
	return nil
}

// compareOn runs reply id again on choice: a new version of it, beside the one it has.
func (m *Model) compareOn(id int64, c modelChoice) tea.Cmd {
	client := c.client
	if client == nil {
		client = m.client.WithModel(c.model)
	}
	m.focusTranscript()
	if cmd := m.regenerateOn(id, client); cmd != nil {
		m.setNotice(fmt.Sprintf("running it again on %s: [ and ] compare the versions", c.label()), false)
		return cmd
	}
	return nil
}

// modelsView draws the list in the transcript's place: height lines.
func (m *Model) modelsView(height int) []string {
	st := m.styles
	look := listLook{title: "Models", choose: "use", typing: "type to narrow", query: "filter", none: "no model's name contains "}
	if m.models.compare != 0 {
		look.title, look.choose = "Run the reply again on", "run"
	}
	return m.models.view(st, m.keys.Picker, m.width, height, look, func(c modelChoice) string {
		row := sanitize.String(c.label())
		if c.client == nil && c.model == m.modelName() {
			row += st.Muted.Render("  (in use)")
		}
		return row
	})
}
