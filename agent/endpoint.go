package agent

import (
	"time"

	"parley/internal/chat"
)

// Default timeouts, used when an Endpoint leaves one zero.
const (
	DefaultConnectTimeout    = 10 * time.Second
	DefaultHeaderTimeout     = 60 * time.Second
	DefaultFirstDeltaTimeout = 90 * time.Second
)

// Endpoint is a resolved OpenAI-compatible endpoint: where to send, with what model and key.
type Endpoint struct {
	// Name is the profile or preset the endpoint came from, "custom" when flags or the
	// environment alone gave its URL, or "demo".
	Name    string
	BaseURL string
	Model   string
	// APIKey is the resolved key; empty when the endpoint is called without one.
	APIKey string
	// KeyEnv names the environment variable the key is read from.
	KeyEnv string
	// KeyErr, when set, says why the key could not be resolved. Every run then fails as
	// credentials_unresolved without sending anything.
	KeyErr string
	// Headers are extra request headers (for example OpenRouter's X-Title).
	Headers map[string]string
	// RouteKey, when set, tells this endpoint's route from others on the same URL, model and
	// key variable, for a gateway that routes by what parley does not read (Route).
	RouteKey string
	// Network is how the endpoint is reached: its proxy, the certificates trusted, the
	// resolver (NetworkFrom).
	Network Network
	// Demo is set for parley's built-in offline demo endpoint.
	Demo bool
	// ConnectTimeout bounds the TCP (and TLS) connect; HeaderTimeout the wait for response
	// headers; FirstDeltaTimeout the wait from sending until the first output (zero: see
	// FirstDeltaDeadline); StreamIdleTimeout a silence after it (zero: 120 s).
	ConnectTimeout, HeaderTimeout, FirstDeltaTimeout, StreamIdleTimeout time.Duration
	// Reasoning says whether the model thinks before it answers; nil leaves it to the model's
	// name (IsReasoningModel).
	Reasoning *bool
	// SendReasoning sends the stored thinking of earlier replies back with them, for the
	// providers that require it; otherwise thinking is never sent back.
	SendReasoning bool
	// MaxTokens, when positive, limits the reply's tokens, thinking included.
	MaxTokens int
	// ReasoningEffort, when set, is sent as reasoning_effort ("low", "medium" or "high").
	ReasoningEffort string
	// Temperature and TopP, when set, are sent as they are.
	Temperature, TopP *float64
	// ContextTokens, when positive, is the model's context window: a conversation whose
	// estimate passes three quarters of it is compacted before it is sent.
	ContextTokens int
	// Vision says whether the model takes images, over what the server says; nil leaves it to
	// the server (Facts).
	Vision *bool
	// Prefill says whether the server continues a final assistant message as its own text (a
	// cut reply is then continued through it), over what the server says; nil leaves it to
	// the server (Facts: llama-server does).
	Prefill *bool
}

// Profile is the profile or preset the endpoint came from, "" when flags or the environment
// alone gave its URL: what names it in config.toml and in --profile.
func (e Endpoint) Profile() string {
	if e.Name == "custom" {
		return ""
	}
	return e.Name
}

// Secrets are the values of the endpoint's settings its server must never have echoed back
// into what parley shows, stores, logs or sends on (chat.Secrets).
func (e Endpoint) Secrets() []string { return chat.Secrets(e.APIKey, e.BaseURL, e.Headers) }
