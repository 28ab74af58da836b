package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/internal/chat"
	"parley/internal/chat/chattest"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
	"parley/internal/mcp"
	"parley/internal/mcp/mcptest"
	"parley/internal/toolloop"
	"parley/tui/toolask"
	"parley/tui/toollist"
)

// toolScreen is a driven screen with server-everything's tools on, and what the server was
// sent.
func toolScreen(t *testing.T, faults ...demo.Fault) (*driver, *demo.Server, string) {
	t.Helper()
	d, srv, _, wire := toolScreenConfig(t, screenConfig{faults: faults})
	return d, srv, wire
}

// toolScreenConfig is toolScreen set up as c says, with the manual clock when c asks for one;
// more servers are configured beside server-everything, off.
func toolScreenConfig(t *testing.T, c screenConfig, more ...mcp.Server) (*driver, *demo.Server, *chattest.Clock, string) {
	t.Helper()
	server, wire := mcptest.Everything(t)
	host := mcp.New(append([]mcp.Server{server}, more...), nil)
	t.Cleanup(func() { host.Close() })
	o, srv, clock := demoOptions(t, c)
	o.Tools = toolloop.NewToolbox(host, []string{"everything"}, c.allowed)
	m, _ := openModel(t, o, 120, 30)
	return newDriver(t, m), srv, clock, wire
}

// asked waits for the question before a call, and returns the call it asks about.
func asked(d *driver) string {
	d.t.Helper()
	d.until("the question before a call", func(m Model) bool { return m.overlays.Front() != nil })
	return d.m.overlays.Front().(*toolask.Question).Summary()
}

// answer answers the question in front with c, as the operator does: → to the choice, enter.
func answer(d *driver, c toolask.Choice) {
	d.t.Helper()
	for range int(c) + 1 {
		d.send(press("right"))
	}
	d.send(press("enter"))
}

// Before a call runs the screen asks, showing its arguments: n refuses it (the refusal goes
// back as its result), a runs it and the next call of the same tool without asking.
func TestToolCallsAreAskedFirst(t *testing.T) {
	t.Parallel()
	echo := func(msg string) demo.Fault {
		return demo.AskTools(demo.Call{Function: "echo", Arguments: `{"message":"` + msg + `"}`})
	}
	d, srv, wire := toolScreen(t, echo("one"), echo("two"), demo.Fault{}, echo("three"))
	if !strings.Contains(plain(d.m), "tools on") {
		t.Errorf("the header does not say tools are on:\n%s", plain(d.m))
	}
	d.typeAndSend("echo one")
	if q := asked(d); q != `everything.echo {"message":"one"}` {
		t.Errorf("asked %q", q)
	}
	if s := plain(d.m); !strings.Contains(s, `run everything.echo {"message":"one"}?`) ||
		!strings.Contains(s, " run once   always for this tool   refuse   ←/→ choose · enter confirm · esc stop") {
		t.Errorf("the question is not where the input was:\n%s", s)
	}
	d.until("the call's line, asking", func(m Model) bool {
		return strings.Contains(plain(m), `▸ echo {"message":"one"} · waiting for your answer`)
	})
	answer(d, toolask.Refuse)
	asked(d)
	if got := demotest.ToolResults(srv.Received()[1]); len(got) != 1 || got[0] != toolloop.Refused {
		t.Errorf("the refusal sent back: %q", got)
	}
	answer(d, toolask.Always)
	d.until("the reply", answered(t, 2))
	if n := len(mcptest.Sent(t, wire, "tools/call")); n != 1 {
		t.Fatalf("server-everything saw %d calls, want 1", n)
	}
	d.until("the calls' lines", func(m Model) bool {
		return strings.Contains(plain(m), `▸ echo {"message":"one"} · refused`) && strings.Contains(plain(m), `▸ echo {"message":"two"} · ran, 9 B`)
	})
	d.typeAndSend("echo three")
	d.until("the second reply", answered(t, 4))
	if n := len(mcptest.Sent(t, wire, "tools/call")); n != 2 {
		t.Errorf("server-everything saw %d calls, want 2: a let echo run without asking", n)
	}
	if got := demotest.ToolResults(srv.Received()[4]); len(got) != 3 || got[2] != "Echo: three" {
		t.Errorf("the last request carried %q", got)
	}
	// t on the reply opens its calls: the arguments and what came back.
	d.selectReplies()
	d.send(press("t"))
	if s := plain(d.m); !strings.Contains(s, `▾ echo {"message":"three"}`) || !strings.Contains(s, "│ Echo: three") {
		t.Errorf("t did not open the calls:\n%s", s)
	}
}

// The question takes the focus: what is typed while it waits neither answers it nor reaches
// the draft (hey once ran the call, cat allowed the tool for the session), enter alone answers
// nothing, and the answer chosen with the arrows and confirmed runs the call once.
func TestTheToolQuestionTakesNoTypedAnswer(t *testing.T) {
	t.Parallel()
	echo := func(msg string) demo.Fault {
		return demo.AskTools(demo.Call{Function: "echo", Arguments: `{"message":"` + msg + `"}`})
	}
	d, _, wire := toolScreen(t, echo("one"), demo.Fault{}, echo("two"))
	d.typeAndSend("echo one")
	for _, r := range "so far" {
		d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	asked(d)
	for _, r := range "hey cat" {
		d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	d.send(press("enter"))
	echoTool := mcp.Tool{Server: "everything", Name: "echo"}
	if d.m.overlays.Front() == nil || d.m.tools.Allowed(echoTool) || d.m.input.Value() != "so far" {
		t.Fatalf("typing answered (question in front %v, echo allowed %v), draft %q",
			d.m.overlays.Front() != nil, d.m.tools.Allowed(echoTool), d.m.input.Value())
	}
	if s := plain(d.m); !strings.Contains(s, "typing waits for this answer") || strings.Contains(s, "so far") {
		t.Errorf("the screen does not show the input set aside:\n%s", s)
	}
	answer(d, toolask.Once)
	d.until("the reply", answered(t, 2))
	if n := len(mcptest.Sent(t, wire, "tools/call")); n != 1 {
		t.Errorf("server-everything saw %d calls, want 1", n)
	}
	if d.m.input.Value() != "so far" || d.m.tools.Allowed(echoTool) {
		t.Errorf("after the answer: draft %q, echo allowed %v", d.m.input.Value(), d.m.tools.Allowed(echoTool))
	}
}

// ctrl+c while the question waits stops the turn, as esc does: the call never runs.
func TestCtrlCAtTheToolQuestionStops(t *testing.T) {
	t.Parallel()
	d, _, wire := toolScreen(t, demo.AskTools(demo.Call{Function: "echo", Arguments: `{"message":"no"}`}))
	d.typeAndSend("echo no")
	asked(d)
	d.send(press("ctrl+c"))
	d.until("the run to end", settled)
	if n := len(mcptest.Sent(t, wire, "tools/call")); n != 0 || d.m.overlays.Front() != nil {
		t.Errorf("after ctrl+c: %d calls, question still in front %v", n, d.m.overlays.Front() != nil)
	}
	if st := lastReply(t, d.m).message.Status; st != chat.StatusCancelled {
		t.Errorf("the reply is %s, want cancelled", st)
	}
}

// A tool config.toml allows ([mcp.NAME] allow) runs without asking; the server's other tools
// are asked for as ever.
func TestConfigAllowedToolsRunWithoutAsking(t *testing.T) {
	t.Parallel()
	d, _, _, wire := toolScreenConfig(t, screenConfig{allowed: []string{"everything.echo"}, faults: []demo.Fault{
		demo.AskTools(demo.Call{Function: "echo", Arguments: `{"message":"hi"}`}),
		demo.AskTools(demo.Call{Function: "get-sum", Arguments: `{"a":2,"b":3}`}),
	}})
	d.typeAndSend("echo hi, then add")
	if q := asked(d); q != `everything.get-sum {"a":2,"b":3}` {
		t.Errorf("asked %q, want get-sum's question alone", q)
	}
	if n := len(mcptest.Sent(t, wire, "tools/call")); n != 1 {
		t.Errorf("server-everything saw %d calls before the question, want echo's", n)
	}
	answer(d, toolask.Once)
	d.until("the reply", answered(t, 2))
}

// esc during a call stops the turn: the call is cancelled through MCP and stored cancelled.
func TestEscDuringACallCancelsIt(t *testing.T) {
	t.Parallel()
	d, _, wire := toolScreen(t, demo.AskTools(demo.Call{Function: "trigger-long-running-operation", Arguments: `{"duration":10,"steps":10}`}))
	d.typeAndSend("wait")
	asked(d)
	answer(d, toolask.Once)
	d.until("the call at the server", func(Model) bool { return len(mcptest.Sent(t, wire, "tools/call")) == 1 })
	d.send(press("esc"))
	d.until("the run to end", settled)
	// The server logs the cancellation when it reads it, which may be after the run has ended
	// here.
	d.until("the cancellation at the server", func(Model) bool {
		return len(mcptest.Sent(t, wire, "notifications/cancelled")) > 0
	})
	if n := len(mcptest.Sent(t, wire, "notifications/cancelled")); n != 1 {
		t.Errorf("the server was sent %d cancellations", n)
	}
	r := lastReply(t, d.m)
	calls, err := historyOf(d.m.db).ToolCalls(r.message.RunID)
	if err != nil || len(calls) != 1 || calls[0].Result.Status != chat.ToolCancelled || r.message.Status != chat.StatusCancelled {
		t.Errorf("stored %+v (%v), run %s", calls, err, r.message.Status)
	}
}

// /tools lists each server's tools with what their schemas cost (server-filesystem's too, on
// a temporary directory, off), and turns them off: the next request offers none of them.
func TestToolsListsAndTurnsOff(t *testing.T) {
	t.Parallel()
	d, srv, _, _ := toolScreenConfig(t, screenConfig{}, mcptest.Filesystem(t, t.TempDir()))
	d.typeAndSend("/tools")
	d.until("the list", func(m Model) bool { return m.overlays.Find(toollist.ID) != nil })
	screen := plain(d.m)
	for _, want := range []string{"everything  on · ", " tools · ", "[x] echo  ", " tok", "fs  off · ", "[ ] read_text_file  ", "enter on/off • esc close"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the list lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "open session") {
		t.Errorf("/tools' keys name the session picker's:\n%s", screen)
	}
	d.send(press("enter")) // the server's row, under the cursor
	d.send(press("esc"))
	if strings.Contains(plain(d.m), "tools on") {
		t.Errorf("the header still says tools are on:\n%s", plain(d.m))
	}
	d.typeAndSend("hello")
	d.until("the reply", answered(t, 2))
	if got := srv.Received()[0].Tools; len(got) != 0 {
		t.Errorf("offered %v after /tools turned them off", got)
	}
	d.typeAndSend("/tools on everything.echo")
	d.typeAndSend("again")
	d.until("the second reply", answered(t, 4))
	if got := srv.Received()[1].Tools; len(got) != 1 || got[0] != "echo" {
		t.Errorf("offered %v, want echo alone", got)
	}
}

// A 503 after a tool's result: Tier 2's retry resumes from the stored result (its request
// carries it), the tool server saw exactly one call, and r on the reply names the calls that
// would run again and asks first.
func TestTier2ResumesAfterAToolResult(t *testing.T) {
	t.Parallel()
	d, srv, clock, wire := toolScreenConfig(t, tier2Config(
		demo.AskTools(demo.Call{Function: "echo", Arguments: `{"message":"once"}`}), demo.Overloaded()))
	d.typeAndSend("echo once")
	asked(d)
	answer(d, toolask.Always)
	d.until("the retry to arm", armed)
	d.advance(clock, time.Second)
	d.advance(clock, time.Second)
	d.until("the reply", func(m Model) bool {
		return settled(m) && !m.tier2.Active() && lastReply(t, m).message.Status == chat.StatusSucceeded
	})
	reqs := srv.Received()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if got := demotest.ToolResults(reqs[2]); len(got) != 1 || got[0] != "Echo: once" {
		t.Errorf("the retry carried %q", got)
	}
	d.until("the resumed reply with its call", func(m Model) bool {
		return strings.Contains(plain(m), `▸ echo {"message":"once"} · ran, 10 B`) && strings.Contains(plain(m), "The tool answered")
	})
	if n := len(mcptest.Sent(t, wire, "tools/call")); n != 1 {
		t.Errorf("server-everything saw %d calls, want 1", n)
	}
	clock.Advance(selectGuard)
	d.selectReplies()
	d.send(press("r"))
	want := `r again to regenerate from here — its run called echo {"message":"once"}, which may run again`
	if d.m.overlays.asked() != want || srv.Requests() != 3 {
		t.Errorf("r said %q after %d requests; want %q", d.m.overlays.asked(), srv.Requests(), want)
	}
}

// A call whose name comes in pieces that each repeat its id, ended with finish_reason
// "stop" (as some Ollama and vLLM builds send it), is one call on the screen, asked for and
// run.
func TestACallInPiecesEndedWithStopIsOneCall(t *testing.T) {
	t.Parallel()
	chunk := func(delta, finish string) string {
		return `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"m","choices":[{"index":0,"delta":{` +
			delta + `},"logprobs":null,"finish_reason":` + finish + `}]}` + "\n\n"
	}
	stream := chunk(`"role":"assistant","content":null`, "null") +
		chunk(`"tool_calls":[{"index":0,"id":"call_9","type":"function","function":{"name":"ec","arguments":""}}]`, "null") +
		chunk(`"tool_calls":[{"index":0,"id":"call_9","function":{"name":"ho"}}]`, "null") +
		chunk(`"tool_calls":[{"index":0,"function":{"arguments":"{\"message\":\"hi\"}"}}]`, "null") +
		chunk(``, `"stop"`) + "data: [DONE]\n\n"
	d, srv, wire := toolScreen(t, demo.Fault{Stream: stream})
	d.typeAndSend("echo hi")
	if q := asked(d); q != `everything.echo {"message":"hi"}` {
		t.Errorf("asked %q", q)
	}
	d.until("the call's line, asking", func(m Model) bool {
		return strings.Contains(plain(m), `▸ echo {"message":"hi"} · waiting for your answer`)
	})
	if s := plain(d.m); strings.Count(s, "▸ ") != 1 {
		t.Errorf("the call's lines:\n%s", s)
	}
	answer(d, toolask.Once)
	d.until("the reply", answered(t, 2))
	if n := len(mcptest.Sent(t, wire, "tools/call")); n != 1 {
		t.Errorf("server-everything saw %d calls, want 1", n)
	}
	if got := demotest.ToolResults(srv.Received()[1]); len(got) != 1 || got[0] != "Echo: hi" {
		t.Errorf("the result sent back: %q", got)
	}
}
