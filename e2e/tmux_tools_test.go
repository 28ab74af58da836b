package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"parley/internal/chat/chattest"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
	"parley/internal/mcp/mcptest"
)

// The chat screen's tools, run by the built binary under tmux against server-everything from
// the npm registry: the question before a call shows its arguments, n refuses (the refusal
// goes back as the result), a runs the next call of the tool without asking, and esc during
// the long-running tool cancels it at the server and stores it cancelled.
func TestTmuxToolCalls(t *testing.T) {
	t.Parallel()
	p := newPane(t, "parley-demo", demo.Options{})
	server, wire := mcptest.Everything(t)
	config := fmt.Sprintf("profile = \"tools\"\n[profiles.tools]\ntools = [\"everything\"]\n\n[mcp.everything]\ncommand = [%q, %q, %q]\nenv = { WIRE = %q, ENTRY = %q }\n",
		server.Command[0], server.Command[1], server.Command[2], server.Env["WIRE"], server.Env["ENTRY"])
	if err := os.WriteFile(filepath.Join(p.home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	echo := func(msg string) demo.Fault {
		return demo.AskTools(demo.Call{Function: "echo", Arguments: `{"message":"` + msg + `"}`})
	}
	p.srv.Push(echo("one"), echo("two"), demo.Fault{}, echo("three"), demo.Fault{},
		demo.AskTools(demo.Call{Function: "trigger-long-running-operation", Arguments: `{"duration":20,"steps":20}`}))
	p.start(140, 30, nil)
	p.waitScreen("tools on")

	p.send("echo one")
	p.waitScreen(`run everything.echo {"message":"one"}?  y once · a always for this tool · n refuse · esc stop`)
	p.key("n")
	p.waitScreen(`run everything.echo {"message":"two"}?`)
	if got := demotest.ToolResults(p.srv.Received()[1]); len(got) != 1 || !strings.HasPrefix(got[0], "The operator refused this call") {
		t.Errorf("the refusal sent back: %q", got)
	}
	p.key("a")
	p.waitScreen("│ Echo: two")
	p.waitScreen("idle")

	p.send("echo three")
	p.waitScreen("│ Echo: three")
	p.waitScreen("idle")
	if n := len(mcptest.Sent(t, wire, "tools/call")); n != 2 {
		t.Errorf("server-everything saw %d calls, want 2 (two ran, one refused)", n)
	}
	if strings.Contains(p.screen(), `run everything.echo {"message":"three"}?`) {
		t.Errorf("a asked again for echo:\n%s", p.screen())
	}

	p.send("take your time")
	p.waitScreen("run everything.trigger-long-running-operation")
	p.key("y")
	chattest.WaitFor(t, "the call at the server", func() bool { return len(mcptest.Sent(t, wire, "tools/call")) == 3 })
	p.key("Escape")
	p.waitScreen("cancelled")
	chattest.WaitFor(t, "notifications/cancelled at the server", func() bool { return len(mcptest.Sent(t, wire, "notifications/cancelled")) == 1 })

	var out struct {
		Messages []struct {
			Status    string
			ToolCalls []struct{ Tool, Status string } `json:"tool_calls"`
		}
	}
	list := strings.Fields(string(p.parley("sessions")))
	if err := json.Unmarshal(p.parley("export", list[0], "--json"), &out); err != nil {
		t.Fatal(err)
	}
	last := out.Messages[len(out.Messages)-1]
	if last.Status != "cancelled" || len(last.ToolCalls) != 1 || last.ToolCalls[0].Tool != "trigger-long-running-operation" ||
		last.ToolCalls[0].Status != "cancelled" {
		t.Errorf("stored %+v", last)
	}
}
