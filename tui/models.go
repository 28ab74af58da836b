package tui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/internal/sanitize"
	"parley/tui/modellist"
)

// This file asks for /model's list (tui/modellist): the endpoint's models, when /model is typed
// alone, or for R the other profiles too, to run a reply again elsewhere: the new version then
// stands beside the old in the version view.

// modelsTimeout bounds asking the endpoint for its models.
const modelsTimeout = 15 * time.Second

// modelsMsg carries the endpoint's models, or why they could not be listed; compare is the
// reply R asked them for, 0 for /model.
type modelsMsg struct {
	models  []string
	compare int64
	err     error
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
	var choices []modellist.Choice
	if msg.compare != 0 {
		for _, c := range m.others {
			choices = append(choices, modellist.Choice{Model: c.Endpoint().Model, Profile: c.Endpoint().Name, Client: c})
		}
	}
	for _, name := range msg.models {
		choices = append(choices, modellist.Choice{Model: name})
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
	m.openOverlay(modellist.New(choices, m.modelName(), msg.compare, m.keys.Picker.Keys, m.styles.list()))
	return nil
}

// compareOn runs reply id again on choice: a new version of it, beside the one it has.
func (m *Model) compareOn(id int64, c modellist.Choice) tea.Cmd {
	client := c.Client
	if client == nil {
		client = m.client.WithModel(c.Model)
	}
	m.focusTranscript()
	if cmd := m.regenerateOn(id, client); cmd != nil {
		m.setNotice(fmt.Sprintf("running it again on %s: [ and ] compare the versions", c.Label()), false)
		return cmd
	}
	return nil
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
