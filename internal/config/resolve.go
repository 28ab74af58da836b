package config

import (
	"cmp"
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"

	"parley/agent"
	"parley/internal/demo"
	"parley/internal/sanitize"
)

// resolveEndpoint applies flags over the environment over the config file, and returns the
// endpoint with the profile it was resolved from: the demo endpoint when it is asked for or
// nothing is configured. The endpoint's model is empty when nothing names one: the caller
// asks the endpoint. An error is a configuration the user must fix.
func resolveEndpoint(f file, cfgPath string, fl Flags, getenv func(string) string) (agent.Endpoint, profile, error) {
	if fl.Demo {
		return demoEndpoint(fl), profile{}, nil
	}
	// Layers from lowest to highest precedence; each non-empty field overrides. The file's
	// default profile sits under the environment; a profile named by --profile is a flag, so
	// it sits over it.
	var layers []profile
	name, sessionModel := "", ""
	if fl.continues() {
		c := fl.Continued
		if !f.defines(c.Profile) {
			return agent.Endpoint{}, profile{}, fmt.Errorf("session %s ran on profile %q, which %s no longer defines: pass --profile NAME to continue it on another",
				c.Session, c.Profile, cfgPath)
		}
		f.Profile, sessionModel = c.Profile, c.Model
	}
	pick := func(n, source string) error {
		if p, ok := f.Profiles[n]; ok {
			if p.Preset != "" {
				layers = append(layers, presets[p.Preset])
			}
			layers = append(layers, p)
		} else if p, ok := presets[n]; ok {
			layers = append(layers, p)
		} else {
			return fmt.Errorf("unknown profile %q (%s): define [profiles.%s] in %s or use a preset: %s", n, source, sanitize.Name(n), cfgPath, presetNames())
		}
		name = n
		return nil
	}
	if f.Profile == "" && fl.Profile == "" && fl.BaseURL == "" && getenv("OPENAI_BASE_URL") == "" {
		// Profiles, and nothing that says which: the only one is meant; of several, none is.
		switch names := slices.Sorted(maps.Keys(f.Profiles)); len(names) {
		case 0:
		case 1:
			f.Profile = names[0]
		default:
			return agent.Endpoint{}, profile{}, fmt.Errorf("%s defines profiles %s and names none to use: set profile = %q in it, or pass --profile NAME",
				cfgPath, strings.Join(names, ", "), names[0])
		}
	}
	if f.Profile != "" && fl.Profile == "" {
		if err := pick(f.Profile, "profile in "+cfgPath); err != nil {
			return agent.Endpoint{}, profile{}, err
		}
	}
	env := profile{BaseURL: getenv("OPENAI_BASE_URL"), Model: getenv("PARLEY_MODEL")}
	layers = append(layers, env, profile{Model: sessionModel})
	if fl.Profile != "" {
		if err := pick(fl.Profile, "--profile"); err != nil {
			return agent.Endpoint{}, profile{}, err
		}
	}
	layers = append(layers, profile{BaseURL: fl.BaseURL, Model: fl.Model, APIKeyEnv: fl.APIKeyEnv})

	var p profile
	for _, l := range layers {
		p = merge(p, l)
	}
	if p.BaseURL == "" {
		if getenv("OPENAI_API_KEY") == "" {
			return demoEndpoint(fl), p, nil
		}
		p = merge(presets["openai"], p)
		p.fromKey, name = true, "openai"
	}
	if name == "" {
		name = "custom"
	}
	u, err := checkBaseURL(p.BaseURL, "from --base-url, OPENAI_BASE_URL or base_url in "+cfgPath)
	if err != nil {
		return agent.Endpoint{}, p, err
	}
	if err := CheckEnvName("--api-key-env", fl.APIKeyEnv); err != nil {
		return agent.Endpoint{}, p, err
	}
	ep := agent.Endpoint{
		Name:              name,
		BaseURL:           strings.TrimRight(p.BaseURL, "/"),
		Model:             p.Model,
		Headers:           p.Headers,
		RouteKey:          p.RouteKey,
		ConnectTimeout:    p.ConnectTimeout.Duration,
		HeaderTimeout:     p.HeaderTimeout.Duration,
		FirstDeltaTimeout: p.FirstDeltaTimeout.Duration,
		StreamIdleTimeout: p.StreamIdleTimeout.Duration,
		ContextTokens:     cmp.Or(p.ContextWindow, p.ContextTokens),
		Reasoning:         p.Reasoning,
		SendReasoning:     p.SendReasoning != nil && *p.SendReasoning,
		MaxTokens:         p.MaxTokens,
		ReasoningEffort:   p.ReasoningEffort,
		Temperature:       p.Temperature,
		TopP:              p.TopP,
		Vision:            p.Vision,
		Prefill:           p.Prefill,
	}
	// A key variable someone named must be set; the default one may be missing only for a
	// server on this machine, which is called without a key.
	named := p.APIKeyEnv != ""
	ep.KeyEnv = p.APIKeyEnv
	if !named {
		ep.KeyEnv = "OPENAI_API_KEY"
	}
	ep.APIKey = getenv(ep.KeyEnv)
	if err := checkKey(ep.KeyEnv, ep.APIKey); err != nil {
		return agent.Endpoint{}, p, err
	}
	switch {
	case ep.APIKey != "":
	case named:
		ep.KeyErr = fmt.Sprintf("%s is not set: export %s=… or name another variable with --api-key-env", ep.KeyEnv, ep.KeyEnv)
	case !isLoopback(u.Hostname()):
		ep.KeyErr = fmt.Sprintf("no API key for %s: export OPENAI_API_KEY=… or name the variable with --api-key-env", u.Host)
	}
	return ep, p, nil
}

// demoEndpoint is the built-in demo endpoint, without its URL: the caller starts it.
func demoEndpoint(fl Flags) agent.Endpoint {
	ep := agent.Endpoint{Name: "demo", Model: demo.DefaultModel, Demo: true}
	if fl.Model != "" {
		ep.Model = fl.Model
	}
	return ep
}

// merge returns p with every field that over sets put in its place; headers are merged.
func merge(p, over profile) profile {
	override(&p.BaseURL, over.BaseURL)
	override(&p.Model, over.Model)
	override(&p.APIKeyEnv, over.APIKeyEnv)
	if len(over.Headers) > 0 {
		h := make(map[string]string, len(p.Headers)+len(over.Headers))
		maps.Copy(h, p.Headers)
		maps.Copy(h, over.Headers)
		p.Headers = h
	}
	override(&p.RouteKey, over.RouteKey)
	override(&p.ConnectTimeout, over.ConnectTimeout)
	override(&p.HeaderTimeout, over.HeaderTimeout)
	override(&p.FirstDeltaTimeout, over.FirstDeltaTimeout)
	override(&p.StreamIdleTimeout, over.StreamIdleTimeout)
	override(&p.PriceInput, over.PriceInput)
	override(&p.PriceOutput, over.PriceOutput)
	override(&p.ContextTokens, over.ContextTokens)
	override(&p.ContextWindow, over.ContextWindow)
	override(&p.MaxTokens, over.MaxTokens)
	override(&p.Reasoning, over.Reasoning)
	override(&p.SendReasoning, over.SendReasoning)
	override(&p.Temperature, over.Temperature)
	override(&p.TopP, over.TopP)
	override(&p.Vision, over.Vision)
	override(&p.Prefill, over.Prefill)
	override(&p.ReasoningEffort, over.ReasoningEffort)
	override(&p.Fallback, over.Fallback)
	override(&p.Role, over.Role)
	if len(over.Tools) > 0 {
		p.Tools = over.Tools
	}
	p.limits = p.limits.over(over.limits)
	return p
}

// override puts src in *dst unless src is its type's zero value (an empty string, a nil
// pointer, 0), which leaves the setting as it was; load refuses negative numbers, so a set
// number is above 0.
func override[T comparable](dst *T, src T) {
	var zero T
	if src != zero {
		*dst = src
	}
}

// spendSettings returns the price table and the spend limits for model, reached through
// profile p: the built-in prices with the profile's own price for its model, and the limits
// of the [limits] table under the profile's under the flags.
func spendSettings(f file, p profile, model string, fl Flags) (agent.Prices, agent.Limits) {
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
	l := f.Limits.over(p.limits).over(limits{MaxSpendDay: fl.MaxSpend, MaxTokensSession: fl.MaxTokensSession})
	return prices, agent.Limits{
		SessionCost: l.MaxSpendSession, DayCost: l.MaxSpendDay,
		SessionTokens: l.MaxTokensSession, DayTokens: l.MaxTokensDay,
	}
}

// hostOf is the host of base URL u, as the operator knows the endpoint: "api.openai.com".
func hostOf(u string) string {
	if parsed, err := url.Parse(u); err == nil && parsed.Host != "" {
		return parsed.Host
	}
	return u
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
