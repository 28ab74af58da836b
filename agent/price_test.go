package agent

import (
	"math"
	"testing"

	"parley/internal/chat"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestPriceMaths(t *testing.T) {
	t.Parallel()
	p := Price{Input: 2.50, Output: 10}
	cases := []struct {
		u    chat.Usage
		want float64
	}{
		{chat.Usage{}, 0},
		{chat.Usage{PromptTokens: 1_000_000}, 2.50},
		{chat.Usage{CompletionTokens: 1_000_000}, 10},
		{chat.Usage{PromptTokens: 1000, CompletionTokens: 500}, 0.0025 + 0.005},
		{chat.Usage{PromptTokens: 1, CompletionTokens: 1}, 12.5e-6},
	}
	for _, c := range cases {
		if got := p.Cost(c.u); !near(got, c.want) {
			t.Errorf("Cost(%+v) = %v, want %v", c.u, got, c.want)
		}
	}
	prices := Prices{"gpt-4o-mini": {0.15, 0.60}, "local": {}}
	if got := prices.Of("openai/gpt-4o-mini"); got != prices["gpt-4o-mini"] {
		t.Errorf("a provider prefix: %+v", got)
	}
	for _, snapshot := range []string{"gpt-4o-mini-2024-07-18", "openai/gpt-4o-mini-20240718"} {
		if got := prices.Of(snapshot); got != prices["gpt-4o-mini"] {
			t.Errorf("a dated snapshot %s: %+v", snapshot, got)
		}
	}
	if got := prices.Of("llama3.2"); got != (Price{}) {
		t.Errorf("an unknown model costs %+v, want nothing", got)
	}
	spent := prices.SpentOf(map[string]chat.Usage{
		"gpt-4o-mini": {PromptTokens: 10_000, CompletionTokens: 2_000},
		"llama3.2":    {PromptTokens: 5_000, CompletionTokens: 5_000},
	})
	if spent.Tokens != 22_000 || !near(spent.Cost, 10_000*0.15/1e6+2_000*0.60/1e6) {
		t.Errorf("SpentOf = %+v", spent)
	}
	for model, p := range DefaultPrices() {
		if p.Input <= 0 || p.Output < p.Input {
			t.Errorf("preset %s: %+v; output is never cheaper than input", model, p)
		}
	}
}
