package agent

import (
	"testing"
	"time"
)

func TestIsReasoningModel(t *testing.T) {
	t.Parallel()
	yes := []string{"o1", "o1-mini", "o3", "o3-pro", "o4-mini", "gpt-5", "gpt-5-mini", "gpt-5.1", "deepseek-reasoner",
		"deepseek-r1", "deepseek-r1:14b", "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", "r1-1776", "qwq", "qwq:32b",
		"qwen3:8b", "Qwen/Qwen3-235B-A22B", "gpt-oss-20b", "openai/gpt-oss-120b", "kimi-k2-thinking",
		"gemini-2.5-flash-thinking", "openai/o3", "openrouter/deepseek/deepseek-r1"}
	no := []string{"gpt-4o", "gpt-4.1-mini", "omni-moderation", "llama3.1:8b", "mistral-large", "deepseek-chat",
		"qwen2.5-coder", "claude-3-5-sonnet", "parley-demo", "o", "gpt-4o-r1x"}
	for _, m := range yes {
		if !IsReasoningModel(m) {
			t.Errorf("IsReasoningModel(%q) = false", m)
		}
	}
	for _, m := range no {
		if IsReasoningModel(m) {
			t.Errorf("IsReasoningModel(%q) = true", m)
		}
	}
}

func TestFirstDeltaDeadline(t *testing.T) {
	t.Parallel()
	on, off := true, false
	cases := []struct {
		ep   Endpoint
		want time.Duration
	}{
		{Endpoint{Model: "gpt-4o"}, 90 * time.Second},
		{Endpoint{Model: "o3"}, 10 * time.Minute},
		{Endpoint{Model: "deepseek-r1:14b"}, 10 * time.Minute},
		{Endpoint{Model: "my-finetune", Reasoning: &on}, 10 * time.Minute},
		{Endpoint{Model: "qwen3:8b", Reasoning: &off}, 90 * time.Second},
		{Endpoint{Model: "o3", FirstDeltaTimeout: 3 * time.Second}, 3 * time.Second},
		{Endpoint{Model: "gpt-4o", FirstDeltaTimeout: 5 * time.Minute}, 5 * time.Minute},
	}
	for _, c := range cases {
		if got := c.ep.FirstDeltaDeadline(); got != c.want {
			t.Errorf("%s (reasoning %v, set %s): %s, want %s", c.ep.Model, c.ep.Reasoning, c.ep.FirstDeltaTimeout, got, c.want)
		}
	}
	if got := (Endpoint{}).StreamIdleDeadline(); got != 120*time.Second {
		t.Errorf("idle default %s", got)
	}
	if got := (Endpoint{StreamIdleTimeout: 2 * time.Second}).StreamIdleDeadline(); got != 2*time.Second {
		t.Errorf("idle set %s", got)
	}
}

func TestInlineThinker(t *testing.T) {
	t.Parallel()
	off := false
	for m, want := range map[string]bool{"deepseek-r1:14b": true, "qwq": true, "qwen3-30b-a3b-thinking-2507": true,
		"o3": false, "gpt-5": false, "deepseek-reasoner": false, "gpt-4o": false} {
		if got := (Endpoint{Model: m}).inlineThinker(); got != want {
			t.Errorf("inlineThinker(%q) = %v", m, got)
		}
	}
	if (Endpoint{Model: "qwq", Reasoning: &off}).inlineThinker() {
		t.Error("reasoning = false must turn off holding")
	}
}

// OpenAI's reasoning models take their token limit as max_completion_tokens under any
// provider prefix, and are known to think by the same rule; other thinkers keep max_tokens.
func TestOpenAIReasoningModelsAreOneRule(t *testing.T) {
	t.Parallel()
	for model, want := range map[string]bool{"o3-mini": true, "openai/o3-mini": true, "OpenAI/GPT-5": true, "o4-mini": true,
		"deepseek-reasoner": false, "qwen3:8b": false, "gpt-4o": false, "openai/gpt-oss-120b": false} {
		ep := Endpoint{Model: model}
		if got := ep.completionLimitField(); got != want {
			t.Errorf("%s: max_completion_tokens %v, want %v", model, got, want)
		}
		if want && !IsReasoningModel(model) {
			t.Errorf("%s takes max_completion_tokens but is not known to think", model)
		}
	}
}
