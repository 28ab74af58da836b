package config

import (
	"fmt"
	"maps"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"parley/internal/mcp"
)

// mcpTable is one [mcp.NAME] table: a tool server on this machine (command, env,
// inherit_env) or one reached over streamable HTTP (url, headers).
type mcpTable struct {
	Command []string          `toml:"command"`
	Env     map[string]string `toml:"env"`
	// InheritEnv names the variables of parley's environment the server is given besides
	// BaseEnv's.
	InheritEnv []string          `toml:"inherit_env"`
	URL        string            `toml:"url"`
	Headers    map[string]string `toml:"headers"`
	// Timeout bounds each tool call; unset, mcp.DefaultCallTimeout.
	Timeout duration `toml:"timeout"`
	// Allow names the server's tools that run without asking (in print mode too, as
	// --allow-tool would let them).
	Allow []string `toml:"allow"`
}

// checkMCP refuses [mcp.NAME] tables that cannot start a server, and profiles' tools that
// name none, each in one line naming the fix.
func (f file) checkMCP(path string, md toml.MetaData) error {
	const fix = "; fix the file (it was not changed)"
	for _, name := range slices.Sorted(maps.Keys(f.MCP)) {
		t := f.MCP[name]
		where := fmt.Sprintf("config %s: [mcp.%s]", path, name)
		// An env or headers written as a string decodes to nothing at all, without an error.
		for _, key := range []string{"env", "headers"} {
			if md.IsDefined("mcp", name, key) && md.Type("mcp", name, key) != "Hash" {
				return fmt.Errorf(`%s: %s must be a table, like %s = { "NAME" = "value" }%s`, where, key, key, fix)
			}
		}
		switch {
		case strings.ContainsAny(name, ". "):
			return fmt.Errorf("%s: a server's name has no dots or spaces (tools are named SERVER.TOOL); rename it%s", where, fix)
		case len(t.Command) == 0 && t.URL == "":
			return fmt.Errorf(`%s has neither command nor url: set command = ["program", "argument"] for a server on stdio, or url = "https://…"%s`, where, fix)
		case len(t.Command) > 0 && t.URL != "":
			return fmt.Errorf("%s has both command and url: keep the one that reaches the server%s", where, fix)
		case len(t.Command) > 0 && strings.TrimSpace(t.Command[0]) == "":
			return fmt.Errorf("%s: command's first word is empty: put the program there%s", where, fix)
		case len(t.Command) > 0 && len(t.Headers) > 0:
			return fmt.Errorf("%s: headers go with url, not command; use env for a server on stdio%s", where, fix)
		case t.URL != "" && len(t.Env) > 0:
			return fmt.Errorf("%s: env goes with command, not url; use headers for a server over HTTP%s", where, fix)
		case t.URL != "" && len(t.InheritEnv) > 0:
			return fmt.Errorf("%s: inherit_env goes with command, not url; use headers for a server over HTTP%s", where, fix)
		}
		if t.URL != "" {
			if u, err := url.Parse(t.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fmt.Errorf("%s: url %q is not http(s)://host[:port]/path%s", where, t.URL, fix)
			}
		}
		for _, tool := range t.Allow {
			if strings.TrimSpace(tool) == "" || strings.Contains(tool, ".") {
				return fmt.Errorf("%s: allow names this server's tools as they are listed (%q is not one: no server prefix, not empty)%s", where, tool, fix)
			}
		}
		if err := CheckHeaders(t.Headers); err != nil {
			return fmt.Errorf("%s: %v%s", where, err, fix)
		}
		for k := range t.Env {
			if err := CheckEnvName("env", k); err != nil {
				return fmt.Errorf("%s: %v%s", where, err, fix)
			}
		}
		for _, k := range t.InheritEnv {
			if !envName.MatchString(k) {
				return fmt.Errorf("%s: inherit_env names %q, which is no variable name (letters, digits and _, not first a digit)%s", where, k, fix)
			}
		}
	}
	for _, pname := range slices.Sorted(maps.Keys(f.Profiles)) {
		for _, tool := range f.Profiles[pname].Tools {
			server, _, _ := strings.Cut(tool, ".")
			if _, ok := f.MCP[server]; !ok {
				known := "none is configured"
				if len(f.MCP) > 0 {
					known = "configured: " + strings.Join(slices.Sorted(maps.Keys(f.MCP)), ", ")
				}
				return fmt.Errorf("config %s: profile %q: tools names %q, but no [mcp.%s] defines that server (%s); add it or take the name out%s",
					path, pname, tool, server, known, fix)
			}
		}
	}
	return nil
}

// allowedTools are the tools the [mcp.NAME] tables allow to run without asking, as
// SERVER.TOOL.
func (f file) allowedTools() []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(f.MCP)) {
		for _, tool := range f.MCP[name].Allow {
			out = append(out, name+"."+tool)
		}
	}
	return out
}

// mcpServers are the [mcp.NAME] tables as the tool host takes them, sorted by name, a server
// on stdio with its whole environment (serverEnv).
func (f file) mcpServers(getenv func(string) string) []mcp.Server {
	var out []mcp.Server
	for _, name := range slices.Sorted(maps.Keys(f.MCP)) {
		t := f.MCP[name]
		s := mcp.Server{Name: name, Command: t.Command, URL: t.URL, Headers: t.Headers, Timeout: t.Timeout.Duration}
		if len(t.Command) > 0 {
			s.Env = serverEnv(t, getenv)
		}
		out = append(out, s)
	}
	return out
}

// BaseEnv names the variables of parley's environment every server on stdio starts with: what
// a program needs to find its tools, its home, its language and the network (npx fetching a
// server goes through the proxy). Nothing else of parley's environment reaches a server, the
// API key's variable least of all, unless its [mcp.NAME] names it in env or inherit_env.
var BaseEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TMPDIR", "TZ",
	"LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_COLLATE", "LC_MESSAGES", "LC_MONETARY", "LC_NUMERIC", "LC_TIME",
	"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_DIRS", "XDG_DATA_DIRS",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS"}

// serverEnv is the whole environment of t's server: BaseEnv's and inherit_env's variables
// that are set in parley's, then env's over them, each value with $NAME and ${NAME} taken
// from parley's environment ($$ is a dollar sign).
func serverEnv(t mcpTable, getenv func(string) string) map[string]string {
	env := map[string]string{}
	for _, k := range slices.Concat(BaseEnv, t.InheritEnv) {
		if v := getenv(k); v != "" {
			env[k] = v
		}
	}
	for k, v := range t.Env {
		env[k] = os.Expand(v, func(name string) string {
			if name == "$" {
				return "$"
			}
			return getenv(name)
		})
	}
	return env
}
