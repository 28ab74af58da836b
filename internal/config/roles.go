package config

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"parley/internal/sanitize"
)

// Role is a named system prompt, with the profile and model it is meant for.
type Role struct {
	Name string
	// System is the system prompt.
	System string
	// Profile and Model, when set, choose the endpoint: a role named with --role runs on its
	// profile unless --profile names another, and on its model unless --model does.
	Profile, Model string
	// Source is where the role is defined: its file, or config.toml's [roles.NAME].
	Source string
}

// System is the system prompt parley was started with.
type System struct {
	// Role names the role the prompt is from; empty for --system's text.
	Role, Text string
	// Explicit is set when --role or --system chose the prompt: it then applies to the
	// session opened, continued ones too. A profile's default role starts new sessions only.
	Explicit bool
}

// roleTable is a [roles.NAME] table of config.toml.
type roleTable struct {
	System  string `toml:"system"`
	Profile string `toml:"profile"`
	Model   string `toml:"model"`
}

// RolesDir is where role files are kept: the roles folder beside config.toml.
func (p Paths) RolesDir() string { return filepath.Join(filepath.Dir(p.Config), "roles") }

// Roles reads every role, from config.toml's [roles] tables and the role files, checked as
// Resolve checks them.
func Roles(getenv func(string) string) (map[string]Role, error) {
	paths, err := ResolvePaths(getenv)
	if err != nil {
		return nil, err
	}
	f, err := load(paths.Config)
	if err != nil {
		return nil, err
	}
	return loadRoles(f, paths)
}

// loadRoles reads the roles of config.toml and of the role files, and checks that each names
// a profile that exists, and that each profile's default role exists.
func loadRoles(f file, paths Paths) (map[string]Role, error) {
	roles := map[string]Role{}
	for name, r := range f.Roles {
		if strings.TrimSpace(r.System) == "" {
			return nil, fmt.Errorf("config %s: [roles.%s] has no system prompt: add system = \"…\"", paths.Config, name)
		}
		roles[name] = Role{Name: name, System: strings.TrimSpace(r.System), Profile: r.Profile, Model: r.Model, Source: paths.Config}
	}
	dir := paths.RolesDir()
	files, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return nil, err
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".md")
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("cannot read role %s: %v", path, err)
		}
		r, err := parseRoleFile(name, path, string(b))
		if err != nil {
			return nil, err
		}
		if prev, ok := roles[name]; ok {
			return nil, fmt.Errorf("role %q is defined twice, in %s and as [roles.%s] in %s: remove one", name, path, name, prev.Source)
		}
		roles[name] = r
	}
	for _, r := range roles {
		if r.Profile != "" && !f.defines(r.Profile) {
			return nil, fmt.Errorf("role %q (%s): profile %q is not defined: define [profiles.%s] in %s or use a preset: %s",
				r.Name, r.Source, r.Profile, r.Profile, paths.Config, presetNames())
		}
	}
	for name, p := range f.Profiles {
		if _, ok := roles[p.Role]; p.Role != "" && !ok {
			return nil, fmt.Errorf("config %s: profile %q: role %q is not defined: add %s or [roles.%s]",
				paths.Config, name, p.Role, filepath.Join(dir, p.Role+".md"), p.Role)
		}
	}
	return roles, nil
}

// parseRoleFile reads a role file: the system prompt, after optional front matter between
// two lines of "---" that may set "profile: NAME" and "model: NAME".
func parseRoleFile(name, path, text string) (Role, error) {
	r := Role{Name: name, Source: path}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	body := lines
	if strings.TrimSpace(lines[0]) == "---" {
		closed := false
		for i := 1; i < len(lines) && !closed; i++ {
			line := strings.TrimSpace(lines[i])
			switch k, v, ok := strings.Cut(line, ":"); {
			case line == "---":
				closed, body = true, lines[i+1:]
			case line == "" || strings.HasPrefix(line, "#"):
			case !ok:
				return Role{}, fmt.Errorf("role %s line %d: want \"profile: NAME\" or \"model: NAME\", or --- to end the front matter", path, i+1)
			case strings.TrimSpace(k) == "profile":
				r.Profile = unquote(v)
			case strings.TrimSpace(k) == "model":
				r.Model = unquote(v)
			default:
				return Role{}, fmt.Errorf("role %s line %d: unknown key %q: use profile or model", path, i+1, strings.TrimSpace(k))
			}
		}
		if !closed {
			return Role{}, fmt.Errorf("role %s: the front matter has no closing --- line: add one before the prompt", path)
		}
	}
	r.System = strings.TrimSpace(strings.Join(body, "\n"))
	if r.System == "" {
		return Role{}, fmt.Errorf("role %s has no system prompt: write it after the front matter", path)
	}
	return r, nil
}

// unquote trims a front matter value and the quotes around it, if any.
func unquote(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		v = v[1 : len(v)-1]
	}
	return v
}

// RoleNames lists roles by name, sorted, for messages.
func RoleNames(roles map[string]Role) string {
	names := make([]string, 0, len(roles))
	for n := range roles {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "none defined"
	}
	return strings.Join(names, ", ")
}

// errUnknownRole is the error for a role that is not defined.
func errUnknownRole(name, source string, roles map[string]Role, paths Paths) error {
	return fmt.Errorf("unknown role %q (%s): add %s or [roles.%s] to %s (known: %s)", name, source,
		sanitize.Name(filepath.Join(paths.RolesDir(), name+".md")), sanitize.Name(name), paths.Config, RoleNames(roles))
}
