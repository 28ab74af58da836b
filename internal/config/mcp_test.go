package config_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"parley/internal/config"
	"parley/internal/mcp"
)

func TestMCPServersResolve(t *testing.T) {
	t.Parallel()
	cfg := `profile = "work"
[profiles.work]
base_url = "http://127.0.0.1:8080/v1"
model = "m"
tools = ["notes", "web.fetch"]

[mcp.notes]
command = ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"]
env = { NODE_OPTIONS = "--no-warnings" }
timeout = "90s"
allow = ["read_text_file", "list_directory"]

[mcp.web]
url = "https://tools.example.com/mcp"
headers = { Authorization = "Bearer x" }
`
	r, _, err := resolve(t, cfg, config.Flags{})
	if err != nil {
		t.Fatal(err)
	}
	want := []mcp.Server{
		{Name: "notes", Command: []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"},
			Env: map[string]string{"NODE_OPTIONS": "--no-warnings"}, Timeout: 90 * time.Second},
		{Name: "web", URL: "https://tools.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer x"}},
	}
	if !reflect.DeepEqual(r.MCP, want) {
		t.Errorf("MCP = %+v\nwant %+v", r.MCP, want)
	}
	if !reflect.DeepEqual(r.Tools, []string{"notes", "web.fetch"}) {
		t.Errorf("Tools = %v", r.Tools)
	}
	if !reflect.DeepEqual(r.Allowed, []string{"notes.read_text_file", "notes.list_directory"}) {
		t.Errorf("Allowed = %v", r.Allowed)
	}
	none, _, err := resolve(t, "", config.Flags{Demo: true})
	if err != nil || none.MCP != nil || none.Tools != nil {
		t.Errorf("no [mcp] tables: %+v, %v, %v", none.MCP, none.Tools, err)
	}
}

// Every [mcp.NAME] parley refuses, in the one line that says so and names the fix.
func TestMCPValidation(t *testing.T) {
	t.Parallel()
	const fix = "; fix the file (it was not changed)"
	rows := []struct{ name, cfg, want string }{
		{"neither command nor url", "[mcp.fs]\ntimeout = \"5s\"\n",
			`config CONFIG: [mcp.fs] has neither command nor url: set command = ["program", "argument"] for a server on stdio, or url = "https://…"` + fix},
		{"both", "[mcp.fs]\ncommand = [\"x\"]\nurl = \"http://127.0.0.1:1/mcp\"\n",
			`config CONFIG: [mcp.fs] has both command and url: keep the one that reaches the server` + fix},
		{"command as a string", "[mcp.fs]\ncommand = \"npx server\"\n",
			`config CONFIG: toml: line 2 (last key "mcp.fs.command"): incompatible types: TOML value has type string; destination has type slice` + fix},
		{"empty program", "[mcp.fs]\ncommand = [\"\", \"a\"]\n",
			`config CONFIG: [mcp.fs]: command's first word is empty: put the program there` + fix},
		{"headers with a command", "[mcp.fs]\ncommand = [\"x\"]\nheaders = { A = \"b\" }\n",
			`config CONFIG: [mcp.fs]: headers go with url, not command; use env for a server on stdio` + fix},
		{"env with a url", "[mcp.web]\nurl = \"https://h/mcp\"\nenv = { A = \"b\" }\n",
			`config CONFIG: [mcp.web]: env goes with command, not url; use headers for a server over HTTP` + fix},
		{"inherit_env with a url", "[mcp.web]\nurl = \"https://h/mcp\"\ninherit_env = [\"A\"]\n",
			`config CONFIG: [mcp.web]: inherit_env goes with command, not url; use headers for a server over HTTP` + fix},
		{"inherit_env naming no variable", "[mcp.fs]\ncommand = [\"x\"]\ninherit_env = [\"GITHUB TOKEN\"]\n",
			`config CONFIG: [mcp.fs]: inherit_env names "GITHUB TOKEN", which is no variable name (letters, digits and _, not first a digit)` + fix},
		{"url that is no URL", "[mcp.web]\nurl = \"h/mcp\"\n",
			`config CONFIG: [mcp.web]: url "h/mcp" is not http(s)://host[:port]/path` + fix},
		{"env as a string", "[mcp.fs]\ncommand = [\"x\"]\nenv = \"A=b\"\n",
			`config CONFIG: [mcp.fs]: env must be a table, like env = { "NAME" = "value" }` + fix},
		{"bad timeout", "[mcp.fs]\ncommand = [\"x\"]\ntimeout = \"soon\"\n",
			`config CONFIG line 3: "soon" is not a duration like 30s or 2m` + fix},
		{"a header HTTP cannot send", "[mcp.web]\nurl = \"https://h/mcp\"\nheaders = { \"A B\" = \"c\" }\n",
			`config CONFIG: [mcp.web]: header name "A B" is not one HTTP can send (letters, digits and -, no spaces or colons)` + fix},
		{"allow naming a server's tool", "[mcp.fs]\ncommand = [\"x\"]\nallow = [\"fs.read_text_file\"]\n",
			`config CONFIG: [mcp.fs]: allow names this server's tools as they are listed ("fs.read_text_file" is not one: no server prefix, not empty)` + fix},
		{"mistyped key", "[mcp.fs]\ncomand = [\"x\"]\n",
			`config CONFIG: unknown key "mcp.fs.comand" — did you mean command? Fix the file (it was not changed)`},
		{"a dotted name", "[mcp.\"a.b\"]\ncommand = [\"x\"]\n",
			`config CONFIG: [mcp.a.b]: a server's name has no dots or spaces (tools are named SERVER.TOOL); rename it` + fix},
		{"a profile's tools naming no server", "[profiles.w]\nbase_url = \"http://127.0.0.1:1/v1\"\ntools = [\"nope.read\"]\n[mcp.fs]\ncommand = [\"x\"]\n",
			`config CONFIG: profile "w": tools names "nope.read", but no [mcp.nope] defines that server (configured: fs); add it or take the name out` + fix},
		{"a profile's tools with no server at all", "[profiles.w]\nbase_url = \"http://127.0.0.1:1/v1\"\ntools = [\"fs\"]\n",
			`config CONFIG: profile "w": tools names "fs", but no [mcp.fs] defines that server (none is configured); add it or take the name out` + fix},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			_, path, err := resolve(t, row.cfg, config.Flags{})
			if want := strings.ReplaceAll(row.want, "CONFIG", path); err == nil || err.Error() != want {
				t.Fatalf("error %v\nwant  %s", err, want)
			}
		})
	}
}

// A server on stdio starts with BaseEnv's variables that are set, those inherit_env names, and
// env's, expanded from parley's environment: never the key's variable unless named.
func TestMCPServerEnvironment(t *testing.T) {
	t.Parallel()
	cfg := `[profiles.work]
base_url = "http://127.0.0.1:8080/v1"
model = "m"
api_key_env = "WORK_KEY"

[mcp.gh]
command = ["github-mcp-server", "stdio"]
env = { GITHUB_TOKEN = "$GITHUB_TOKEN", GREETING = "hi ${USER}, $$5 $UNSET." }
inherit_env = ["EXTRA", "NOT_SET"]

[mcp.web]
url = "https://tools.example.com/mcp"
`
	r, _, err := resolve(t, cfg, config.Flags{}, "PATH=/usr/bin:/bin", "HOME=/home/me", "USER=me", "LANG=C.UTF-8", "LC_TIME=en_GB.UTF-8",
		"OPENAI_API_KEY=sk-openai-0123456789", "WORK_KEY=sk-work-0123456789", "GITHUB_TOKEN=ghp_0123456789", "EXTRA=yes", "OTHER=no")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"PATH": "/usr/bin:/bin", "HOME": "/home/me", "USER": "me", "LANG": "C.UTF-8", "LC_TIME": "en_GB.UTF-8",
		"GITHUB_TOKEN": "ghp_0123456789", "GREETING": "hi me, $5 .", "EXTRA": "yes"}
	if len(r.MCP) != 2 || !reflect.DeepEqual(r.MCP[0].Env, want) {
		t.Fatalf("gh's environment %v\nwant %v", r.MCP[0].Env, want)
	}
	if r.MCP[1].Env != nil {
		t.Errorf("a server over HTTP has an environment: %v", r.MCP[1].Env)
	}
}
