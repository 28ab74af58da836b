package agent

import (
	"regexp"
	"strings"

	"parley/internal/chat"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input, Output float64
}

// Cost returns what u costs at p, in US dollars.
func (p Price) Cost(u chat.Usage) float64 {
	return (float64(u.PromptTokens)*p.Input + float64(u.CompletionTokens)*p.Output) / 1e6
}

// Prices holds the price of each model parley knows one for, by model name.
type Prices map[string]Price

// DefaultPrices returns OpenAI's list prices (standard tier, US dollars per million tokens)
// for its common chat models, as published when this parley was built. Profiles override them.
func DefaultPrices() Prices {
	return Prices{
		"gpt-5":         {1.25, 10},
		"gpt-5-mini":    {0.25, 2},
		"gpt-5-nano":    {0.05, 0.40},
		"gpt-4.1":       {2, 8},
		"gpt-4.1-mini":  {0.40, 1.60},
		"gpt-4.1-nano":  {0.10, 0.40},
		"gpt-4o":        {2.50, 10},
		"gpt-4o-mini":   {0.15, 0.60},
		"o3":            {2, 8},
		"o3-mini":       {1.10, 4.40},
		"o4-mini":       {1.10, 4.40},
		"o1":            {15, 60},
		"gpt-4-turbo":   {10, 30},
		"gpt-3.5-turbo": {0.50, 1.50},
	}
}

// Of returns the price of model: its own entry, else the entry of the name after a provider
// prefix ("openai/gpt-4o-mini" as OpenRouter names it). A model without a price costs nothing.
func (p Prices) Of(model string) Price {
	for _, name := range []string{model, model[strings.LastIndexByte(model, '/')+1:]} {
		if pr, ok := p[name]; ok {
			return pr
		}
		// A dated snapshot (gpt-4o-mini-2024-07-18), as an endpoint names the model that
		// answered, costs what its model does.
		if pr, ok := p[snapshotDate.ReplaceAllString(name, "")]; ok {
			return pr
		}
	}
	return Price{}
}

// snapshotDate is the date a snapshot's name ends in.
var snapshotDate = regexp.MustCompile(`-(\d{4}-\d{2}-\d{2}|\d{8})$`)

// Spent is what a set of runs used: tokens, input and output together, and their cost.
type Spent struct {
	Tokens int
	// Cost is in US dollars.
	Cost float64
}

// SpentOf prices usage by model.
func (p Prices) SpentOf(byModel map[string]chat.Usage) Spent {
	var s Spent
	for model, u := range byModel {
		s.Tokens += u.PromptTokens + u.CompletionTokens
		s.Cost += p.Of(model).Cost(u)
	}
	return s
}
