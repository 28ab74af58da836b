package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"parley/history"
	"parley/internal/chat"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
	"parley/internal/mcp"
	"parley/internal/mcp/mcptest"
)

// Print mode with tools: a call runs only when --allow-tool or --allow-tools lets it;
// otherwise it is refused, the refusal goes back as its result, and stderr says so.

// toolsJSON is print mode's --json object with the calls it lists.
type toolsJSON struct {
	printJSON
	ToolCalls []struct {
		Function, Server, Tool, Arguments, Status, Result string
		IsError                                           bool `json:"is_error"`
		Size                                              int
	} `json:"tool_calls"`
}

// toolConfig is a config.toml whose profile talks to srv with server's tools on.
func toolConfig(srv *demo.Server, server mcp.Server) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[profiles.local]\nbase_url = %q\nmodel = \"m\"\ntools = [%q]\n\n[mcp.%s]\ncommand = [", srv.URL(), server.Name, server.Name)
	for i, w := range server.Command {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", w)
	}
	b.WriteString("]\n")
	if len(server.Env) > 0 {
		b.WriteString("env = {")
		first := true
		for k, v := range server.Env {
			if !first {
				b.WriteString(",")
			}
			first = false
			fmt.Fprintf(&b, " %s = %q", k, v)
		}
		b.WriteString(" }\n")
	}
	return b.String()
}

func TestPrintModeRefusesToolsUnlessAllowed(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	server, wire := mcptest.Everything(t)
	u.writeConfig(toolConfig(srv, server))
	echo := demo.AskTools(demo.Call{Function: "echo", Arguments: `{"message":"hi"}`})

	srv.Push(echo)
	r := u.run("-p", "say hi", "--json")
	out := decode[toolsJSON](t, r.stdout)
	if r.code != 0 || out.Status != "succeeded" || len(out.ToolCalls) != 1 || out.ToolCalls[0].Status != "refused" ||
		out.ToolCalls[0].Server != "everything" || out.ToolCalls[0].Tool != "echo" {
		t.Fatalf("exit %d, %+v, stderr %q", r.code, out, r.stderr)
	}
	refusal := "Not run: parley's print mode runs a tool only when --allow-tool everything.echo (or --allow-tools, or allow in [mcp.everything]) allows it."
	if want := `parley: tool echo {"message":"hi"} — refused: ` + refusal; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q\nwant %q", r.stderr, want)
	}
	if got := demotest.ToolResults(srv.Received()[1]); len(got) != 1 || got[0] != refusal {
		t.Errorf("the model was sent %q", got)
	}
	if n := len(mcptest.Sent(t, wire, "tools/call")); n != 0 {
		t.Fatalf("server-everything saw %d calls", n)
	}

	srv.Push(echo)
	r = u.run("-p", "say hi again", "-c", "--json", "--allow-tool", "everything.echo")
	out = decode[toolsJSON](t, r.stdout)
	if r.code != 0 || len(out.ToolCalls) != 1 || out.ToolCalls[0].Status != "ran" || out.ToolCalls[0].Result != "Echo: hi" ||
		out.ToolCalls[0].Size != len("Echo: hi") || !strings.Contains(out.Text, "Echo: hi") {
		t.Fatalf("exit %d, %+v, stderr %q", r.code, out, r.stderr)
	}
	if got := demotest.ToolResults(srv.Received()[3]); len(got) != 2 || got[1] != "Echo: hi" {
		t.Errorf("the model was sent %q", got)
	}
	if n := len(mcptest.Sent(t, wire, "tools/call")); n != 1 {
		t.Errorf("server-everything saw %d calls, want 1", n)
	}

	// The export lists the calls of both runs, a line each in markdown.
	exp := decode[exportToolsJSON](t, u.run("export", out.SessionID, "--json").stdout)
	var stored []string
	for _, m := range exp.Messages {
		for _, c := range m.ToolCalls {
			stored = append(stored, c.Status+" "+c.Result)
		}
	}
	if len(stored) != 2 || stored[0] != "refused "+refusal || stored[1] != "ran Echo: hi" {
		t.Errorf("export lists %q", stored)
	}
	md := u.run("export", out.SessionID, "--markdown").stdout
	if !strings.Contains(md, "- tool `echo {\"message\":\"hi\"}` — refused\n") || !strings.Contains(md, "- tool `echo {\"message\":\"hi\"}` — ran, 8 B\n") {
		t.Errorf("markdown:\n%s", md)
	}
}

// A tool config.toml allows ([mcp.NAME] allow) runs in print mode without --allow-tool; the
// server's other tools are still refused.
func TestPrintModeRunsWhatConfigAllows(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	server, wire := mcptest.Everything(t)
	u.writeConfig(toolConfig(srv, server) + "allow = [\"echo\"]\n")
	srv.Push(demo.AskTools(demo.Call{Function: "echo", Arguments: `{"message":"hi"}`},
		demo.Call{Function: "get-sum", Arguments: `{"a":2,"b":3}`}))
	r := u.run("-p", "say hi and add", "--json")
	out := decode[toolsJSON](t, r.stdout)
	if r.code != 0 || len(out.ToolCalls) != 2 || out.ToolCalls[0].Status != "ran" || out.ToolCalls[0].Result != "Echo: hi" ||
		out.ToolCalls[1].Status != "refused" {
		t.Fatalf("exit %d, %+v, stderr %q", r.code, out, r.stderr)
	}
	if n := len(mcptest.Sent(t, wire, "tools/call")); n != 1 {
		t.Errorf("server-everything saw %d calls, want echo's alone", n)
	}
}

// exportToolsJSON is the part of `parley export --json` that lists tool calls.
type exportToolsJSON struct {
	Messages []struct {
		ToolCalls []struct{ Status, Result string } `json:"tool_calls"`
	} `json:"messages"`
}

// A 503 after a tool's result, until Tier 1 gives up: --wait's retry resumes from the stored
// result (its request carries it), and the tool server saw exactly one call.
func TestWaitResumesFromAStoredToolResult(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	server, wire := mcptest.Everything(t)
	u.instantClock()
	u.writeConfig(toolConfig(srv, server))
	srv.Push(demo.AskTools(demo.Call{Function: "echo", Arguments: `{"message":"once"}`}),
		demo.Overloaded(), demo.Overloaded(), demo.Overloaded())
	r := u.run("-p", "echo once", "--json", "--allow-tools", "--wait")
	out := decode[toolsJSON](t, r.stdout)
	reqs := srv.Received()
	if r.code != 0 || out.Status != "succeeded" || len(reqs) != 5 {
		t.Fatalf("exit %d, %+v, %d requests, stderr %q", r.code, out, len(reqs), r.stderr)
	}
	if got := demotest.ToolResults(reqs[4]); len(got) != 1 || got[0] != "Echo: once" {
		t.Errorf("the retry carried %q", got)
	}
	if n := len(mcptest.Sent(t, wire, "tools/call")); n != 1 {
		t.Errorf("server-everything saw %d calls, want 1", n)
	}
	if len(out.ToolCalls) != 1 || out.ToolCalls[0].Status != "ran" {
		t.Errorf("--json lists %+v", out.ToolCalls)
	}
}

// A whole tool call that a server ends with finish_reason "stop" (some Ollama and vLLM builds
// do), its name in pieces that each repeat its id, is one call, and it runs.
func TestPrintModeRunsAToolCallEndedWithStop(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	server, wire := mcptest.Everything(t)
	u.writeConfig(toolConfig(srv, server))
	piece := func(tc string) string { return sseChunk(0, `"tool_calls":[`+tc+`]`, "null") }
	srv.Push(demo.Fault{Stream: sseChunk(0, `"role":"assistant","content":null`, "null") +
		piece(`{"index":0,"id":"call_9","type":"function","function":{"name":"ec","arguments":""}}`) +
		piece(`{"index":0,"id":"call_9","function":{"name":"ho"}}`) +
		piece(`{"index":0,"function":{"arguments":"{\"message\":"}}`) +
		piece(`{"index":0,"function":{"arguments":"\"hi\"}"}}`) +
		sseChunk(0, ``, `"stop"`) + "data: [DONE]\n\n"})
	r := u.run("-p", "say hi", "--json", "--allow-tool", "everything.echo")
	out := decode[toolsJSON](t, r.stdout)
	if r.code != 0 || len(out.ToolCalls) != 1 || out.ToolCalls[0].Function != "echo" || out.ToolCalls[0].Status != "ran" ||
		out.ToolCalls[0].Result != "Echo: hi" {
		t.Fatalf("exit %d, %+v, stderr %q", r.code, out, r.stderr)
	}
	if n := len(mcptest.Sent(t, wire, "tools/call")); n != 1 || srv.Requests() != 2 {
		t.Errorf("server-everything saw %d calls, the endpoint %d requests", n, srv.Requests())
	}
}

// A call that parley was stopped in the middle of (its end never stored) is shown, after
// the next start, as one that may have run, and --continue goes on from the stored results:
// the model is told so, and nothing runs again.
func TestACallLeftPendingMayHaveRunAndGoesOn(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	db, err := history.Open(filepath.Join(u.home, "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	rcpt, err := db.Post("", "echo hi", "m", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.StartRun(rcpt.RunID); err != nil {
		t.Fatal(err)
	}
	call := chat.ToolCall{ID: "call_1", Function: "echo", Arguments: `{"message":"hi"}`}
	if _, err := db.BeginToolCall(rcpt.RunID, 0, 0, call, "everything", "echo"); err != nil {
		t.Fatal(err)
	}
	db.Close() // the run and its call never end: as after kill -9
	md := u.run("export", rcpt.SessionID, "--markdown").stdout
	if !strings.Contains(md, "- tool `echo {\"message\":\"hi\"}` — may have run\n") {
		t.Fatalf("markdown:\n%s", md)
	}
	r := u.run(append(endpointFlags(srv), "--session", rcpt.SessionID, "--continue", "--json")...)
	out := decode[toolsJSON](t, r.stdout)
	if r.code != 0 || out.Status != "succeeded" || srv.Requests() != 1 {
		t.Fatalf("exit %d, %+v, %d requests, stderr %q", r.code, out, srv.Requests(), r.stderr)
	}
	if got := demotest.ToolResults(srv.Received()[0]); len(got) != 1 || got[0] != chat.ToolMayHaveRun {
		t.Errorf("the model was sent %q", got)
	}
}
