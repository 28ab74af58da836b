package agent

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"parley/internal/chat"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// echoEntry is an OpenAI tools entry, as internal/mcp makes them.
var echoEntry = json.RawMessage(`{"type":"function","function":{"name":"echo","description":"Says it back.","parameters":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}}}`)

// A streamed tool call arrives in pieces, as OpenAI sends them: the whole call is on the
// finish, the pieces are output, and the request offered the tools.
func TestStreamsToolCallsWhole(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{}, demo.AskTools(demo.Call{Function: "echo", Arguments: `{"message":"héllo, wörld of tools"}`},
		demo.Call{Function: "get-sum", Arguments: `{"a":2,"b":3}`}))
	c := testClient(Endpoint{BaseURL: srv.URL(), Model: "m"}).WithTools([]json.RawMessage{echoEntry})
	var events []chat.Event
	for ev := range c.Stream(context.Background(), hello) {
		events = append(events, ev)
	}
	last := events[len(events)-1]
	want := []chat.ToolCall{
		{ID: "call_parleydemo000001_0", Function: "echo", Arguments: `{"message":"héllo, wörld of tools"}`},
		{ID: "call_parleydemo000001_1", Function: "get-sum", Arguments: `{"a":2,"b":3}`},
	}
	if last.Kind != chat.EventFinished || last.FinishReason != "tool_calls" || !reflect.DeepEqual(last.Calls, want) {
		t.Fatalf("ended %+v", last)
	}
	if n := count(events, chat.EventToolCall); n < 4 {
		t.Errorf("%d tool-call pieces: the arguments came in one", n)
	}
	if got := srv.Received()[0].Tools; !reflect.DeepEqual(got, []string{"echo"}) {
		t.Errorf("the request offered %v", got)
	}
	var body struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(srv.Received()[0].Body, &body); err != nil || len(body.Tools) != 1 || !sameJSON(body.Tools[0], echoEntry) {
		t.Errorf("tools sent %s (%v)", body.Tools, err)
	}
}

// A call cut mid-arguments is output (no Tier 1 retry after it) and never whole: nothing
// may run it.
func TestCallCutMidArgumentsIsNeverWhole(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{})
	f := demo.AskTools(demo.Call{Function: "echo", Arguments: `{"message":"a long message cut short"}`})
	f.CutAfter = 2
	srv.Push(f)
	c := testClient(Endpoint{BaseURL: srv.URL(), Model: "m"}).WithTools([]json.RawMessage{echoEntry})
	last := lastEvent(t, c.Stream(context.Background(), hello))
	if last.Kind != chat.EventFailed || len(last.Calls) != 0 || srv.Requests() != 1 {
		t.Fatalf("ended %+v after %d requests", last, srv.Requests())
	}
	if last.Class.Class != chat.Network || !last.Class.Retryable {
		t.Errorf("classified %+v", last.Class)
	}
}

// The conversation sent back carries the assistant's calls and the tools' results.
func TestSendsToolCallsAndResultsBack(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{})
	call := chat.ToolCall{ID: "call_1", Function: "echo", Arguments: `{"message":"hi"}`}
	msgs := []chat.Message{{Role: chat.RoleUser, Content: "say hi"},
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{call}},
		{Role: chat.RoleTool, ToolCallID: "call_1", Content: "Echo: hi"}}
	last := lastEvent(t, testClient(Endpoint{BaseURL: srv.URL(), Model: "m"}).Stream(context.Background(), msgs))
	if last.Kind != chat.EventFinished {
		t.Fatalf("ended %+v", last)
	}
	got := srv.Received()[0].Messages
	if len(got) != 3 || len(got[1].ToolCalls) != 1 || got[1].ToolCalls[0].ID != "call_1" || got[1].ToolCalls[0].Type != "function" ||
		got[1].ToolCalls[0].Function.Name != "echo" || got[1].ToolCalls[0].Function.Arguments != `{"message":"hi"}` ||
		got[2].Role != "tool" || got[2].ToolCallID != "call_1" || got[2].Content != "Echo: hi" {
		t.Errorf("sent %+v", got)
	}
	if !strings.Contains(string(srv.Received()[0].Body), `"tool_call_id":"call_1"`) {
		t.Errorf("body %s", srv.Received()[0].Body)
	}
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// Compaction leaves out whole earlier turns, their tool calls and results with them, and never
// the turn being answered: its anchor and the steps of its run go together.
func TestCompactionKeepsToolCallsWithTheirResults(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("words ", 400)
	call := chat.ToolCall{ID: "c1", Function: "echo", Arguments: `{"message":"` + long + `"}`}
	msgs := []chat.Message{
		{Role: chat.RoleUser, Content: "first " + long},
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{call}},
		{Role: chat.RoleTool, ToolCallID: "c1", Content: long},
		{Role: chat.RoleAssistant, Content: "done"},
		{Role: chat.RoleUser, Content: "second"},
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "c2", Function: "echo", Arguments: long}}},
		{Role: chat.RoleTool, ToolCallID: "c2", Content: long},
	}
	kept, omitted := Compact(msgs, 10)
	if omitted != 4 || len(kept) != 3 || kept[0].Content != "second" || kept[1].ToolCalls[0].ID != "c2" || kept[2].ToolCallID != "c2" {
		t.Errorf("omitted %d, kept %+v", omitted, kept)
	}
	if EstimateTokens(msgs[1:2]) < EstimateText(call.Arguments) {
		t.Errorf("a call's arguments are not counted: %d", EstimateTokens(msgs[1:2]))
	}
}
