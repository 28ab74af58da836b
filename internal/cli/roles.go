package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"parley/internal/chat"
	"parley/internal/config"
	"parley/internal/sanitize"
)

// roleJSON is one role of `parley roles --json`.
type roleJSON struct {
	Name    string `json:"name"`
	System  string `json:"system"`
	Profile string `json:"profile,omitempty"`
	Model   string `json:"model,omitempty"`
	Source  string `json:"source"`
}

// listRoles is `parley roles [--json]`: every role, by name, with where it is defined, the
// profile and model it chooses and the start of its system prompt.
func listRoles(ctx context.Context, args []string, ios *IO) (int, error) {
	pos, jsonOut, err := parseJSONFlag("roles", args)
	if err != nil || len(pos) > 0 {
		return chat.ExitUsage, usagef("usage: parley roles [--json]")
	}
	roles, err := config.Roles(ios.Getenv)
	if err != nil {
		return chat.ExitUsage, err
	}
	names := make([]string, 0, len(roles))
	for n := range roles {
		names = append(names, n)
	}
	slices.Sort(names)
	if jsonOut {
		out := make([]roleJSON, 0, len(names))
		for _, n := range names {
			r := roles[n]
			out = append(out, roleJSON{Name: r.Name, System: r.System, Profile: r.Profile, Model: r.Model, Source: r.Source})
		}
		return chat.ExitOK, chat.WriteJSON(ios.Out, out)
	}
	if len(names) == 0 {
		paths, err := config.ResolvePaths(ios.Getenv)
		if err != nil {
			return chat.ExitUsage, err
		}
		fmt.Fprintf(ios.Out, "no roles: write one as %s, or as [roles.NAME] with system = \"…\" in %s\n",
			paths.RolesDir()+"/NAME.md", paths.Config)
		return chat.ExitOK, nil
	}
	for _, n := range names {
		r := roles[n]
		var uses []string
		if r.Profile != "" {
			uses = append(uses, "profile "+r.Profile)
		}
		if r.Model != "" {
			uses = append(uses, "model "+r.Model)
		}
		first, _, _ := strings.Cut(r.System, "\n")
		if len([]rune(first)) > 60 {
			first = string([]rune(first)[:59]) + "…"
		}
		// The name is what --role takes: shown as text, whatever it holds.
		fmt.Fprintf(ios.Out, "%-12s %-28s %s  (%s)\n", sanitize.Name(r.Name), strings.Join(uses, ", "), first, r.Source)
	}
	return chat.ExitOK, nil
}
