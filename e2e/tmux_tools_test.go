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
// the npm registry: the question before a call shows its arguments and takes the focus (hey
// and cat typed while it waits neither answer it nor reach the input), → and enter run the
// call once, a refusal goes back as the result, "always" runs the next call of the tool
// without asking, and esc during the long-running tool cancels it at the server and stores it
// cancelled.
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
	p.srv.Push(echo("one"), echo("two"), demo.Fault{}, echo("three"), echo("four"), demo.Fault{},
		demo.AskTools(demo.Call{Function: "trigger-long-running-operation", Arguments: `{"duration":20,"steps":20}`}))
	p.start(140, 30, nil)
	p.waitScreen("tools on")
	calls := func() int { return len(mcptest.Sent(t, wire, "tools/call")) }

	p.send("echo one")
	p.waitScreen(`run everything.echo {"message":"one"}?`)
	p.waitScreen(" run once   always for this tool   refuse   ←/→ choose · enter confirm · esc stop")
	p.typeText("hey")
	p.key("Enter")
	p.typeText("cat")
	p.key("Right") // keys arrive in order: once this shows, hey and cat have been read
	screen := p.waitScreen("[run once]")
	if n := calls(); n != 0 || strings.Contains(screen, "┃") || !strings.Contains(screen, "typing waits for this answer") {
		t.Fatalf("typing while the question waited: %d calls, screen:\n%s", n, screen)
	}
	p.press("Enter", `run everything.echo {"message":"two"}?`)
	if n := calls(); n != 1 {
		t.Errorf("server-everything saw %d calls after → enter, want 1", n)
	}
	for range 3 {
		p.key("Right")
	}
	p.waitScreen("[refuse]")
	p.press("Enter", "idle")
	if got := demotest.ToolResults(p.srv.Received()[2]); len(got) != 2 || got[0] != "Echo: one" || !strings.HasPrefix(got[1], "The operator refused this call") {
		t.Errorf("the results sent back: %q", got)
	}
	if in := inputLines(p.screen()); !strings.Contains(in, "Ask anything") {
		t.Errorf("what was typed while the question waited reached the input: %q", in)
	}

	p.send("echo three")
	p.waitScreen(`run everything.echo {"message":"three"}?`)
	p.keys("Right", "Right")
	p.waitScreen("[always for this tool]")
	p.press("Enter", "│ Echo: four")
	p.waitScreen("idle")
	if n := calls(); n != 3 {
		t.Errorf("server-everything saw %d calls, want 3 (one, three and four ran, two refused)", n)
	}
	if strings.Contains(p.screen(), `run everything.echo {"message":"four"}?`) {
		t.Errorf("always asked again for echo:\n%s", p.screen())
	}

	p.send("take your time")
	p.waitScreen("run everything.trigger-long-running-operation")
	p.press("Right", "[run once]")
	p.key("Enter")
	chattest.WaitFor(t, "the call at the server", func() bool { return calls() == 4 })
	p.press("Escape", "cancelled")
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

// inputLines are the lines of screen that show the input box (its prompt "┃ ").
func inputLines(screen string) string {
	var in []string
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "┃ ") {
			in = append(in, l)
		}
	}
	return strings.Join(in, "\n")
}
