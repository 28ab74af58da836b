// Package config resolves what parley runs with: the endpoint, its prices and spend limits,
// from flags over the environment over config.toml's profiles over the presets over the
// defaults; and where parley keeps its files. It reads config.toml and never writes it.
package config

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"parley/agent"
	"parley/internal/attach"
	"parley/internal/mcp"
	"parley/retry"
)

// Flags are the command-line settings that choose an endpoint and limit its spend.
type Flags struct {
	// BaseURL, Model and APIKeyEnv are --base-url, --model and --api-key-env; Profile is
	// --profile, a profile of config.toml or a preset.
	BaseURL, Model, APIKeyEnv, Profile string
	// Demo is --demo: use the built-in offline demo endpoint whatever is configured.
	Demo bool
	// Role is --role, a role of config.toml or of the role files; System is --system, a
	// system prompt that replaces the role's.
	Role, System string
	// MaxSpend is --max-spend, the day's limit in US dollars; MaxTokensSession is
	// --max-tokens-session. Zero sets no limit.
	MaxSpend         float64
	MaxTokensSession int
	// Theme is --theme: light, dark or auto, over config.toml's theme.
	Theme string
	// ScreenReader is --screen-reader: the chat screen as lines for a screen reader.
	ScreenReader bool
	// Continued is the session -c or --session continues, with the profile and model it last
	// ran on, if stored.
	Continued Continued
}

// Continued is a session being continued, and the profile and model it last ran on (empty
// when none was stored). Its profile stands where config.toml's default profile does, and its
// model over the environment's, unless --profile, --base-url or --demo chooses the endpoint;
// --model, or --role's model, goes on its profile instead of its model. A profile's default
// role, which starts new sessions, changes nothing here.
type Continued struct {
	Session, Profile, Model string
}

// continues reports whether fl runs on the continued session's profile: one is stored, and
// no flag chooses another endpoint.
func (fl Flags) continues() bool {
	return fl.Continued.Profile != "" && fl.Profile == "" && fl.BaseURL == "" && !fl.Demo
}

// Resolved is the configuration parley runs with.
type Resolved struct {
	Paths Paths
	// Endpoint is the endpoint to call. When Endpoint.Demo is set (--demo, or nothing is
	// configured at all) its BaseURL is empty: the caller starts the demo endpoint and puts
	// its URL there.
	Endpoint agent.Endpoint
	// Prices and Limits are what runs are held to: the built-in prices with the profile's own
	// for its model, and the limits of [limits] under the profile's under the flags.
	Prices agent.Prices
	Limits agent.Limits
	// Fallback is the endpoint of the profile's fallback, when it names one: where the
	// operator may send a retry instead of waiting.
	Fallback *agent.Endpoint
	// Rules are the [[classify]] tables, tried before the built-in classification.
	Rules []retry.UserRule
	// System is the system prompt to start with; its Text is empty when none is set.
	System System
	// Roles are every role defined, for choosing another while parley runs.
	Roles map[string]Role
	// Attach are the largest text file and image that may be attached.
	Attach attach.Limits
	// ReadingWidth caps the columns replies are set in; 0: the chat screen's default.
	ReadingWidth int
	// Mouse captures the mouse on the chat screen from the start.
	Mouse bool
	// Theme is the chat screen's palette, --theme over config.toml's: light, dark or auto
	// (the default). Notify is config.toml's notify: bell (the default), osc9 or off.
	Theme, Notify string
	// ScreenReader runs the chat screen as an append-only stream of lines for a screen reader:
	// --screen-reader or config.toml's screen_reader.
	ScreenReader bool
	// Others are the endpoints of config.toml's other profiles, by profile name, for running a
	// reply again on another (R on the chat screen); a profile that does not resolve is left
	// out, since it was not asked for.
	Others []agent.Endpoint
	// MCP are the tool servers of [mcp.NAME], sorted by name; none starts until used.
	MCP []mcp.Server
	// Tools are the profile's tools on from the start: SERVER (all its tools) or SERVER.TOOL.
	Tools []string
	// Allowed are the tools [mcp.NAME] allow lets run without asking, as SERVER.TOOL.
	Allowed []string
	// Chosen, when set, says how the endpoint was chosen where nothing configured one, for the
	// first screen: "using OPENAI_API_KEY: gpt-4o-mini at api.openai.com · --demo for the
	// offline demo".
	Chosen string
}

// Resolve reads the configuration: the paths from getenv, config.toml, the roles, and the
// endpoint, its prices and limits, with flags over the environment over the profile over its
// preset over the defaults. A role named with --role stands where --profile and --model do,
// under them; a profile's default role only chooses the model, under --model. The endpoint's
// model is empty when nothing names one. Every error is one line naming the fix; no file is
// ever changed.
func Resolve(fl Flags, getenv func(string) string) (Resolved, error) {
	paths, err := ResolvePaths(getenv)
	if err != nil {
		return Resolved{}, err
	}
	f, err := load(paths.Config)
	if err != nil {
		return Resolved{}, err
	}
	roles, err := loadRoles(f, paths)
	if err != nil {
		return Resolved{}, err
	}
	var role *Role
	if fl.Role != "" {
		r, ok := roles[fl.Role]
		if !ok {
			return Resolved{}, errUnknownRole(fl.Role, "--role", roles, paths)
		}
		role = &r
		if fl.Profile == "" {
			fl.Profile = r.Profile
		}
		if fl.Model == "" {
			fl.Model = r.Model
		}
	}
	ep, p, err := resolveEndpoint(f, paths.Config, fl, getenv)
	if err != nil {
		return Resolved{}, err
	}
	if r, ok := roles[p.Role]; role == nil && ok {
		role = &r
		if fl.Model == "" && r.Model != "" && !fl.continues() {
			fl.Model = r.Model
			if ep, p, err = resolveEndpoint(f, paths.Config, fl, getenv); err != nil {
				return Resolved{}, err
			}
		}
	}
	prices, limits := spendSettings(f, p, ep.Model, fl)
	var others []agent.Endpoint
	for _, name := range slices.Sorted(maps.Keys(f.Profiles)) {
		if name == ep.Profile() {
			continue
		}
		if o, _, err := resolveEndpoint(f, paths.Config, Flags{Profile: name}, getenv); err == nil {
			others = append(others, o)
		}
	}
	rules, err := f.rules(paths.Config)
	if err != nil {
		return Resolved{}, err
	}
	r := Resolved{Paths: paths, Endpoint: ep, Prices: prices, Limits: limits, Rules: rules, Roles: roles,
		Attach: attach.DefaultLimits, ReadingWidth: f.ReadingWidth, Mouse: f.Mouse, Others: others,
		Theme: cmp.Or(fl.Theme, f.Theme, "auto"), Notify: cmp.Or(f.Notify, "bell"), ScreenReader: fl.ScreenReader || f.ScreenReader,
		MCP: f.mcpServers(getenv), Tools: p.Tools, Allowed: f.allowedTools()}
	if p.fromKey {
		r.Chosen = fmt.Sprintf("using OPENAI_API_KEY: %s at %s · --demo for the offline demo", ep.Model, hostOf(ep.BaseURL))
	}
	if f.MaxAttachmentBytes > 0 {
		r.Attach.Text = f.MaxAttachmentBytes
	}
	if f.MaxImageBytes > 0 {
		r.Attach.Image = f.MaxImageBytes
	}
	switch {
	case fl.System != "":
		r.System = System{Text: fl.System, Explicit: true}
	case role != nil:
		r.System = System{Role: role.Name, Text: role.System, Explicit: fl.Role != ""}
	}
	if p.Fallback != "" {
		if !f.defines(p.Fallback) {
			return Resolved{}, fmt.Errorf("fallback %q is not a profile: define [profiles.%s] in %s or use a preset: %s", p.Fallback, p.Fallback, paths.Config, presetNames())
		}
		fb, _, err := resolveEndpoint(f, paths.Config, Flags{Profile: p.Fallback}, getenv)
		if err != nil {
			return Resolved{}, fmt.Errorf("fallback %q: %v", p.Fallback, err)
		}
		if fb.Model == "" {
			return Resolved{}, fmt.Errorf("fallback %q has no model: set model in [profiles.%s] in %s", p.Fallback, p.Fallback, paths.Config)
		}
		r.Fallback = &fb
	}
	return r, nil
}
