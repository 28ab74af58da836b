package config

import (
	"sort"
	"strings"
)

// presets are the endpoints parley knows by name; a profile may start from one, and
// --profile may name one.
var presets = map[string]profile{
	"openai":     {BaseURL: "https://api.openai.com/v1", Model: "gpt-4o-mini", APIKeyEnv: "OPENAI_API_KEY"},
	"ollama":     {BaseURL: "http://127.0.0.1:11434/v1", Model: "llama3.2"},
	"llamacpp":   {BaseURL: "http://127.0.0.1:8080/v1", Model: "default"},
	"lmstudio":   {BaseURL: "http://127.0.0.1:1234/v1", Model: "default"},
	"vllm":       {BaseURL: "http://127.0.0.1:8000/v1", Model: "default"},
	"openrouter": {BaseURL: "https://openrouter.ai/api/v1", Model: "openai/gpt-4o-mini", APIKeyEnv: "OPENROUTER_API_KEY", Headers: map[string]string{"X-Title": "parley"}},
	"groq":       {BaseURL: "https://api.groq.com/openai/v1", Model: "llama-3.3-70b-versatile", APIKeyEnv: "GROQ_API_KEY"},
	"mistral":    {BaseURL: "https://api.mistral.ai/v1", Model: "mistral-small-latest", APIKeyEnv: "MISTRAL_API_KEY"},
	"deepseek":   {BaseURL: "https://api.deepseek.com/v1", Model: "deepseek-chat", APIKeyEnv: "DEEPSEEK_API_KEY"},
	"gemini":     {BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai", Model: "gemini-2.0-flash", APIKeyEnv: "GEMINI_API_KEY"},
}

// defines reports whether name is a profile of f or a preset.
func (f file) defines(name string) bool {
	_, inFile := f.Profiles[name]
	_, preset := presets[name]
	return inFile || preset
}

// presetNames lists the presets for an error message, sorted.
func presetNames() string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
