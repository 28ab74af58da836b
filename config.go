package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"parley/agent"
)

// paths says where parley keeps its files.
type paths struct {
	config, db, log string
}

// resolvePaths puts everything under PARLEY_HOME when it is set, else in the XDG directories.
func resolvePaths(getenv func(string) string) (paths, error) {
	if home := getenv("PARLEY_HOME"); home != "" {
		return paths{
			config: filepath.Join(home, "config.toml"),
			db:     filepath.Join(home, "history.db"),
			log:    filepath.Join(home, "parley.log"),
		}, nil
	}
	userHome, err := os.UserHomeDir()
	xdg := func(env, fallback string) (string, error) {
		if dir := getenv(env); dir != "" {
			return filepath.Join(dir, "parley"), nil
		}
		if err != nil {
			return "", fmt.Errorf("cannot find a home directory (%v): set PARLEY_HOME", err)
		}
		return filepath.Join(userHome, fallback, "parley"), nil
	}
	cfg, err1 := xdg("XDG_CONFIG_HOME", ".config")
	data, err2 := xdg("XDG_DATA_HOME", ".local/share")
	state, err3 := xdg("XDG_STATE_HOME", ".local/state")
	if err := errors.Join(err1, err2, err3); err != nil {
		return paths{}, err
	}
	return paths{
		config: filepath.Join(cfg, "config.toml"),
		db:     filepath.Join(data, "history.db"),
		log:    filepath.Join(state, "parley.log"),
	}, nil
}

// profile is one named endpoint in config.toml.
type profile struct {
	Preset            string            `toml:"preset"`
	BaseURL           string            `toml:"base_url"`
	Model             string            `toml:"model"`
	APIKeyEnv         string            `toml:"api_key_env"`
	Headers           map[string]string `toml:"headers"`
	ConnectTimeout    duration          `toml:"connect_timeout"`
	HeaderTimeout     duration          `toml:"header_timeout"`
	FirstDeltaTimeout duration          `toml:"first_delta_timeout"`
	// PriceInput and PriceOutput are what the profile's model costs, in US dollars per
	// million input and output tokens; unset, the model's preset price (if any) applies.
	PriceInput  *float64 `toml:"price_input"`
	PriceOutput *float64 `toml:"price_output"`
	// ContextTokens is the model's context window; set, parley compacts before sending.
	ContextTokens int `toml:"context_tokens"`
	// A profile's own spend limits override those of the [limits] table.
	limits
}

// limits are spend limits, per session and per calendar day, in US dollars and in tokens.
// Zero or absent sets no limit.
type limits struct {
	MaxSpendSession  float64 `toml:"max_spend_session"`
	MaxSpendDay      float64 `toml:"max_spend_day"`
	MaxTokensSession int     `toml:"max_tokens_session"`
	MaxTokensDay     int     `toml:"max_tokens_day"`
}

// fileConfig is config.toml.
type fileConfig struct {
	// Profile names the profile used when no --profile flag is given.
	Profile  string             `toml:"profile"`
	Profiles map[string]profile `toml:"profiles"`
	// Limits apply to every profile, unless the profile sets its own.
	Limits limits `toml:"limits"`
}

// duration reads a TOML string such as "30s" as a time.Duration.
type duration struct{ time.Duration }

func (d *duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration like 30s or 2m", b)
	}
	d.Duration = v
	return nil
}

// presets are the endpoints parley knows by name; a profile may start from one.
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

func presetNames() string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// loadConfig reads config.toml; a missing file is an empty config. It never writes the file.
func loadConfig(path string) (fileConfig, error) {
	var cfg fileConfig
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, fmt.Errorf("cannot read config %s: %v", path, err)
	}
	md, err := toml.Decode(string(b), &cfg)
	if err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return cfg, fmt.Errorf("config %s line %d: %s; fix the file (it was not changed)", path, perr.Position.Line, perr.Message)
		}
		return cfg, fmt.Errorf("config %s: %v; fix the file (it was not changed)", path, err)
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		return cfg, fmt.Errorf("config %s: unknown key %q; fix the file (it was not changed)", path, undecoded[0].String())
	}
	if err := cfg.Limits.check(); err != nil {
		return cfg, fmt.Errorf("config %s: [limits]: %v; fix the file (it was not changed)", path, err)
	}
	for name, p := range cfg.Profiles {
		if p.Preset != "" {
			if _, ok := presets[p.Preset]; !ok {
				return cfg, fmt.Errorf("config %s: profile %q: unknown preset %q (known: %s)", path, name, p.Preset, presetNames())
			}
		}
		if err := p.check(); err != nil {
			return cfg, fmt.Errorf("config %s: profile %q: %v; fix the file (it was not changed)", path, name, err)
		}
	}
	return cfg, nil
}

// check refuses numbers that cannot be meant: a negative price, window or limit.
func (p profile) check() error {
	for key, v := range map[string]*float64{"price_input": p.PriceInput, "price_output": p.PriceOutput} {
		if v != nil && *v < 0 {
			return fmt.Errorf("%s is %v; a price is at least 0", key, *v)
		}
	}
	if p.ContextTokens < 0 {
		return fmt.Errorf("context_tokens is %d; a context window is at least 1 token", p.ContextTokens)
	}
	return p.limits.check()
}

func (l limits) check() error {
	for key, v := range map[string]float64{
		"max_spend_session": l.MaxSpendSession, "max_spend_day": l.MaxSpendDay,
		"max_tokens_session": float64(l.MaxTokensSession), "max_tokens_day": float64(l.MaxTokensDay),
	} {
		if v < 0 {
			return fmt.Errorf("%s is %v; a limit is at least 0 (0 sets none)", key, v)
		}
	}
	return nil
}

// over returns l with every limit that o sets put in its place.
func (l limits) over(o limits) limits {
	if o.MaxSpendSession > 0 {
		l.MaxSpendSession = o.MaxSpendSession
	}
	if o.MaxSpendDay > 0 {
		l.MaxSpendDay = o.MaxSpendDay
	}
	if o.MaxTokensSession > 0 {
		l.MaxTokensSession = o.MaxTokensSession
	}
	if o.MaxTokensDay > 0 {
		l.MaxTokensDay = o.MaxTokensDay
	}
	return l
}

// endpointFlags are the command-line settings that choose an endpoint and limit its spend.
type endpointFlags struct {
	baseURL, model, keyEnv, profile string
	demo                            bool
	// maxSpend is --max-spend, the day's limit in US dollars; maxTokensSession is
	// --max-tokens-session. Zero sets no limit.
	maxSpend         float64
	maxTokensSession int
}

// errUseDemo means nothing is configured at all, so parley uses its offline demo endpoint.
var errUseDemo = errors.New("nothing configured")

// resolveEndpoint applies flags over the environment over the config file, and returns the
// endpoint with the profile it was resolved from. It returns errUseDemo when the demo
// endpoint is asked for or nothing is configured, and any other error for a configuration the
// user must fix.
func resolveEndpoint(cfg fileConfig, cfgPath string, fl endpointFlags, getenv func(string) string) (agent.Endpoint, profile, error) {
	if fl.demo {
		return agent.Endpoint{}, profile{}, errUseDemo
	}
	// Layers from lowest to highest precedence; each non-empty field overrides.
	var layers []profile
	name := ""
	pick := func(n, source string) error {
		if p, ok := cfg.Profiles[n]; ok {
			if p.Preset != "" {
				layers = append(layers, presets[p.Preset])
			}
			layers = append(layers, p)
		} else if p, ok := presets[n]; ok {
			layers = append(layers, p)
		} else {
			return fmt.Errorf("unknown profile %q (%s): define [profiles.%s] in %s or use a preset: %s", n, source, n, cfgPath, presetNames())
		}
		name = n
		return nil
	}
	if cfg.Profile != "" && fl.profile == "" {
		if err := pick(cfg.Profile, "profile in "+cfgPath); err != nil {
			return agent.Endpoint{}, profile{}, err
		}
	}
	env := profile{BaseURL: getenv("OPENAI_BASE_URL"), Model: getenv("PARLEY_MODEL")}
	layers = append(layers, env)
	if fl.profile != "" {
		if err := pick(fl.profile, "--profile"); err != nil {
			return agent.Endpoint{}, profile{}, err
		}
	}
	layers = append(layers, profile{BaseURL: fl.baseURL, Model: fl.model, APIKeyEnv: fl.keyEnv})

	var p profile
	for _, l := range layers {
		p = merge(p, l)
	}
	if p.BaseURL == "" {
		if getenv("OPENAI_API_KEY") == "" {
			return agent.Endpoint{}, p, errUseDemo
		}
		p = merge(presets["openai"], p)
		name = "openai"
	}
	if name == "" {
		name = "custom"
	}
	u, err := url.Parse(p.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return agent.Endpoint{}, p, fmt.Errorf("invalid base URL %q: want http(s)://host[:port]/v1 (from --base-url, OPENAI_BASE_URL or base_url in %s)", p.BaseURL, cfgPath)
	}
	if p.Model == "" {
		return agent.Endpoint{}, p, fmt.Errorf("no model for %s: pass --model NAME, set PARLEY_MODEL, or set model in %s", p.BaseURL, cfgPath)
	}
	ep := agent.Endpoint{
		Name:              name,
		BaseURL:           strings.TrimRight(p.BaseURL, "/"),
		Model:             p.Model,
		Headers:           p.Headers,
		ConnectTimeout:    p.ConnectTimeout.Duration,
		HeaderTimeout:     p.HeaderTimeout.Duration,
		FirstDeltaTimeout: p.FirstDeltaTimeout.Duration,
		ContextTokens:     p.ContextTokens,
	}
	// A key variable someone named must be set; the default one may be missing only for a
	// server on this machine, which is called without a key.
	named := p.APIKeyEnv != ""
	ep.KeyEnv = p.APIKeyEnv
	if !named {
		ep.KeyEnv = "OPENAI_API_KEY"
	}
	ep.APIKey = getenv(ep.KeyEnv)
	switch {
	case ep.APIKey != "":
	case named:
		ep.KeyErr = fmt.Sprintf("%s is not set: export %s=… or name another variable with --api-key-env", ep.KeyEnv, ep.KeyEnv)
	case !isLoopback(u.Hostname()):
		ep.KeyErr = fmt.Sprintf("no API key for %s: export OPENAI_API_KEY=… or name the variable with --api-key-env", u.Host)
	}
	return ep, p, nil
}

func merge(p, over profile) profile {
	if over.BaseURL != "" {
		p.BaseURL = over.BaseURL
	}
	if over.Model != "" {
		p.Model = over.Model
	}
	if over.APIKeyEnv != "" {
		p.APIKeyEnv = over.APIKeyEnv
	}
	if len(over.Headers) > 0 {
		h := make(map[string]string, len(p.Headers)+len(over.Headers))
		for k, v := range p.Headers {
			h[k] = v
		}
		for k, v := range over.Headers {
			h[k] = v
		}
		p.Headers = h
	}
	for _, d := range []struct{ dst, src *duration }{
		{&p.ConnectTimeout, &over.ConnectTimeout},
		{&p.HeaderTimeout, &over.HeaderTimeout},
		{&p.FirstDeltaTimeout, &over.FirstDeltaTimeout},
	} {
		if d.src.Duration > 0 {
			*d.dst = *d.src
		}
	}
	if over.PriceInput != nil {
		p.PriceInput = over.PriceInput
	}
	if over.PriceOutput != nil {
		p.PriceOutput = over.PriceOutput
	}
	if over.ContextTokens > 0 {
		p.ContextTokens = over.ContextTokens
	}
	p.limits = p.limits.over(over.limits)
	return p
}

// spendSettings returns the price table and the spend limits for model, reached through
// profile p: OpenAI's presets with the profile's own price for its model, and the limits of
// the [limits] table under the profile's under the flags.
func spendSettings(cfg fileConfig, p profile, model string, fl endpointFlags) (agent.Prices, agent.Limits) {
	prices := agent.DefaultPrices()
	if p.PriceInput != nil || p.PriceOutput != nil {
		pr := prices.Of(model)
		if p.PriceInput != nil {
			pr.Input = *p.PriceInput
		}
		if p.PriceOutput != nil {
			pr.Output = *p.PriceOutput
		}
		prices[model] = pr
	}
	l := cfg.Limits.over(p.limits).over(limits{MaxSpendDay: fl.maxSpend, MaxTokensSession: fl.maxTokensSession})
	return prices, agent.Limits{
		SessionCost: l.MaxSpendSession, DayCost: l.MaxSpendDay,
		SessionTokens: l.MaxTokensSession, DayTokens: l.MaxTokensDay,
	}
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
