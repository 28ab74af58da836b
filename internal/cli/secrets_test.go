package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"parley/internal/demo"
	"parley/internal/demo/demotest"
	"parley/internal/mcp"
	"parley/internal/mcp/mcptest"
)

// Secrets never leave: a password in the base URL, a key in its query, and a key a server echoes
// back in its error appear nowhere parley writes: not stdout, stderr, the history, the log or
// either export.
func TestSecretsNeverLeave(t *testing.T) {
	t.Parallel()
	const password, queryKey, apiKey = "PASSWORD-hunter2", "SECRET-q-77", "sk-live-0123456789abcdef"
	srv := demotest.Start(t, demo.Options{})
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"Invalid API key provided: %s. You can find your API key at https://example.test.","type":"invalid_request_error","code":"invalid_api_key"}}`,
			r.Header.Get("Authorization"))
	}))
	t.Cleanup(echo.Close)

	u := newUser(t, "MY_KEY="+apiKey)
	var seen strings.Builder
	keep := func(r result) result {
		seen.WriteString(r.stdout + r.stderr)
		return r
	}
	withPassword := strings.Replace(srv.URL(), "http://", "http://me:"+password+"@", 1)
	ok := keep(u.run("-p", "hello", "--base-url", withPassword, "--model", "m", "--json"))
	if ok.code != 0 {
		t.Fatalf("with a password in the URL: exit %d %s", ok.code, ok.stderr)
	}
	if r := keep(u.run("-p", "hi", "--base-url", srv.URL()+"?key="+queryKey, "--model", "m")); r.code != 2 {
		t.Fatalf("a query in the base URL: exit %d, want 2", r.code)
	}
	bad := keep(u.run("-p", "hi", "--base-url", echo.URL+"/v1", "--model", "m", "--api-key-env", "MY_KEY", "--json"))
	if bad.code != 1 || !strings.Contains(bad.stderr, "Invalid API key provided: Bearer [redacted]") {
		t.Fatalf("a server echoing the key: exit %d, stderr %q", bad.code, bad.stderr)
	}
	for _, line := range strings.Split(strings.TrimSpace(keep(u.run("sessions")).stdout), "\n") {
		id := strings.Fields(line)[0]
		keep(u.run("export", id, "--json"))
		keep(u.run("export", id, "--markdown"))
	}
	filepath.Walk(u.home, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(path)
			seen.Write(b)
		}
		return nil
	})
	for _, secret := range []string{password, queryKey, apiKey} {
		if strings.Contains(seen.String(), secret) {
			t.Errorf("%s is in what parley wrote", secret)
		}
	}
	if !strings.Contains(seen.String(), "[redacted]") {
		t.Error("nothing was redacted: the test saw none of the secrets' places")
	}
}

// sseOf is an event stream of OpenAI chunks, one a delta of field (content or
// reasoning_content) for each piece, ended as OpenAI ends one.
func sseOf(field string, pieces ...string) string {
	var b strings.Builder
	for _, p := range pieces {
		fmt.Fprintf(&b, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1767225600,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{%q:%q},\"finish_reason\":null}]}\n\n", field, p)
	}
	b.WriteString("data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1767225600,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	return b.String()
}

// characters is s one character a piece.
func characters(s string) []string { return strings.Split(s, "") }

// A key (and a secret header's value) a server echoes in every shape a reply takes, and a tool
// that returns it, appear nowhere parley writes: stdout, stderr, the home (history.db,
// parley.log) and both exports; not even in part.
func TestAnEchoedKeyIsInNothingParleyWrites(t *testing.T) {
	t.Parallel()
	const apiKey, headerKey = "sk-echo-5f3a9c1e7b2d4a6f8e0c", "pk-portkey-9d8c7b6a5f4e"
	u, srv := newServedUser(t, "MY_KEY="+apiKey)
	u.instantClock()
	server, wire := mcptest.Everything(t)
	withTools := strings.Replace(toolConfig(srv, server), "model = \"m\"\n", "model = \"m\"\napi_key_env = \"MY_KEY\"\n"+
		"headers = { \"x-portkey-api-key\" = \""+headerKey+"\", \"x-portkey-provider\" = \"openai\" }\n", 1)
	u.writeConfig(strings.Replace(withTools, "tools = [\"everything\"]\n", "", 1))
	completion := `{"id":"chatcmpl-1","object":"chat.completion","created":1767225600,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Whole: ` +
		apiKey + `","reasoning_content":"I saw ` + apiKey + `"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":10}}`
	plain := strings.Repeat("upstream said no. ", 20)[:290] + apiKey + " and then some"
	escaped := strings.ReplaceAll(apiKey, "e", `\u0065`) // the client cannot read it as the key: the tool can
	shapes := []struct {
		name   string
		faults []demo.Fault
		args   []string
		code   int
	}{
		{"whole in one delta", []demo.Fault{{Stream: sseOf("content", "Your key is "+apiKey+".")}}, nil, 0},
		{"one character a delta", []demo.Fault{{Stream: sseOf("content", characters("Your key is "+apiKey+".")...)}}, nil, 0},
		{"one character a delta, not --json", []demo.Fault{{Stream: sseOf("content", characters("Your key is "+apiKey+".")...)}}, nil, 0},
		{"reasoning_content", []demo.Fault{{Stream: sseOf("reasoning_content", characters("Thinking of "+apiKey)...)}}, nil, 0},
		{"a whole chat.completion", []demo.Fault{{Status: 200, Header: map[string]string{"Content-Type": "application/json"}, Body: completion}}, nil, 0},
		{"text/plain error straddling the cut", []demo.Fault{{Status: 502, Header: map[string]string{"Content-Type": "text/plain"}, Body: plain},
			{Status: 502, Header: map[string]string{"Content-Type": "text/plain"}, Body: plain},
			{Status: 502, Header: map[string]string{"Content-Type": "text/plain"}, Body: plain}}, nil, 3},
		{"a secret header echoed", []demo.Fault{{Stream: sseOf("content", characters("provider openai, key "+headerKey)...)}}, nil, 0},
		{"an echoing tool (last: its config turns tools on)", []demo.Fault{demo.AskTools(demo.Call{Function: "echo", Arguments: `{"message":"` + escaped + `"}`})},
			[]string{"--allow-tool", "everything.echo"}, 0},
	}
	var seen strings.Builder
	for _, shape := range shapes {
		srv.Push(shape.faults...)
		args := append([]string{"-p", "tell me " + shape.name}, shape.args...)
		if !strings.HasSuffix(shape.name, "not --json") {
			args = append(args, "--json")
		}
		if shape.args != nil { // tools on: their server starts with every run
			u.writeConfig(withTools)
		}
		r := u.run(args...)
		seen.WriteString(r.stdout + r.stderr)
		if r.code != shape.code || !strings.Contains(r.stdout+r.stderr, "[redacted]") {
			t.Errorf("%s: exit %d, want %d, with [redacted]; stdout %q stderr %q", shape.name, r.code, shape.code, r.stdout, r.stderr)
		}
		if shape.name == "a secret header echoed" && !strings.Contains(r.stdout, "provider openai, key [redacted]") {
			t.Errorf("%s: stdout %q", shape.name, r.stdout)
		}
	}
	if calls := mcptest.Sent(t, wire, "tools/call"); len(calls) != 1 {
		t.Errorf("server-everything saw %d calls, want 1", len(calls))
	}
	for _, line := range strings.Split(strings.TrimSpace(u.run("sessions").stdout), "\n") {
		id := strings.Fields(line)[0]
		for _, format := range []string{"--json", "--markdown"} {
			r := u.run("export", id, format)
			seen.WriteString(r.stdout + r.stderr)
		}
	}
	filepath.Walk(u.home, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && info.Name() != "config.toml" { // the header is the user's, written there
			b, _ := os.ReadFile(path)
			seen.Write(b)
		}
		return nil
	})
	for _, secret := range []string{apiKey, headerKey} {
		if strings.Contains(seen.String(), secret[:12]) {
			t.Errorf("%s is in what parley wrote, whole or in part", secret)
		}
	}
}

// A tool server starts with a minimal environment: neither OPENAI_API_KEY nor the configured
// key's variable reaches it, while what its [mcp.NAME] names in env and inherit_env does.
func TestToolServersStartWithAMinimalEnvironment(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t, "OPENAI_API_KEY=sk-openai-0123456789", "MY_KEY=sk-mine-0123456789",
		"FROM_PARLEY=named", "INHERITED=inherited", "LANG=C.UTF-8")
	server, _ := mcptest.Everything(t)
	server.Env["NAMED"] = "$FROM_PARLEY"
	u.writeConfig(strings.Replace(toolConfig(srv, server), "model = \"m\"\n", "model = \"m\"\napi_key_env = \"MY_KEY\"\n", 1) +
		"inherit_env = [\"INHERITED\"]\n")
	srv.Push(demo.AskTools(demo.Call{Function: "get-env", Arguments: `{}`}))
	r := u.run("-p", "what is your environment?", "--json", "--allow-tool", "everything.get-env")
	out := decode[toolsJSON](t, r.stdout)
	if r.code != 0 || len(out.ToolCalls) != 1 || out.ToolCalls[0].Status != "ran" {
		t.Fatalf("exit %d, %+v, stderr %q", r.code, out, r.stderr)
	}
	env := decode[map[string]string](t, out.ToolCalls[0].Result)
	for _, name := range []string{"OPENAI_API_KEY", "MY_KEY", "FROM_PARLEY"} {
		if _, ok := env[name]; ok {
			t.Errorf("the server saw %s", name)
		}
	}
	for name, want := range map[string]string{"NAMED": "named", "INHERITED": "inherited", "LANG": "C.UTF-8", "HOME": u.home} {
		if env[name] != want {
			t.Errorf("the server saw %s=%q, want %q", name, env[name], want)
		}
	}
}

// A tool server that was given the key and writes it to stderr as it fails to start: its words
// reach stderr (the start's error), the log and the tool's result only redacted.
func TestAToolServersStderrIsRedacted(t *testing.T) {
	t.Parallel()
	const apiKey = "sk-stderr-0123456789abcdef"
	u, srv := newServedUser(t, "MY_KEY="+apiKey)
	leaky := mcp.Server{Name: "leaky", Command: []string{"sh", "-c", `echo "my key is $LEAK" >&2; exit 1`}, Env: map[string]string{"LEAK": "$MY_KEY"}}
	u.writeConfig(strings.Replace(toolConfig(srv, leaky), "model = \"m\"\n", "model = \"m\"\napi_key_env = \"MY_KEY\"\n", 1))
	r := u.run("-p", "hello", "--json")
	if r.code != 0 || !strings.Contains(r.stderr, `mcp server \"leaky\"`) && !strings.Contains(r.stderr, `mcp server "leaky"`) {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	log, err := os.ReadFile(filepath.Join(u.home, "parley.log"))
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "the log": string(log)} {
		if strings.Contains(text, apiKey[:12]) {
			t.Errorf("the key is in %s: %q", what, text)
		}
	}
	if !strings.Contains(string(log), "my key is [redacted]") {
		t.Errorf("the log does not quote the server's stderr, redacted:\n%s", log)
	}
}
