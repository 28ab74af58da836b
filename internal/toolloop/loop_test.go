package toolloop_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"parley/internal/chat"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// The demo asks for echo, get-sum (server-everything's add) and read_file (server-filesystem,
// on a file the test wrote): each runs once, is stored, and the model's next request carries
// its result.
func TestLoopSendsRealToolResultsBack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	note := filepath.Join(dir, "note.txt")
	if err := os.WriteFile(note, []byte("the tide is at six"), 0o600); err != nil {
		t.Fatal(err)
	}
	ev, wire := everything(t)
	r := newRig(t, ev, filesystem(t, dir))
	r.srv.Push(demo.AskTools(demo.Call{Function: "echo", Arguments: `{"message":"hi there"}`}),
		demo.AskTools(demo.Call{Function: "get-sum", Arguments: `{"a":2,"b":3}`}),
		demo.AskTools(demo.Call{Function: "read_file", Arguments: `{"path":"` + note + `"}`}))
	rcpt := r.post(t, "echo, add, read")
	events := r.run(t, context.Background(), rcpt, runAll, 0)
	if last := events[len(events)-1]; last.Kind != chat.EventFinished || last.FinishReason != "stop" || last.NotStored != "" {
		t.Fatalf("ended %+v", last)
	}
	reqs := r.srv.Received()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	want := []string{"Echo: hi there", "The sum of 2 and 3 is 5.", "the tide is at six"}
	for i := 1; i <= 3; i++ {
		got := demotest.ToolResults(reqs[i])
		if !reflect.DeepEqual(got, want[:i]) {
			t.Errorf("request %d carried results %q, want %q", i+1, got, want[:i])
		}
		if len(reqs[i].Tools) == 0 || !strings.Contains(strings.Join(reqs[i].Tools, " "), "read_file") {
			t.Errorf("request %d offered %v", i+1, reqs[i].Tools)
		}
	}
	if n := len(sent(t, wire, "tools/call")); n != 2 {
		t.Errorf("server-everything saw %d calls, want 2", n)
	}
	calls, err := r.db.ToolCalls(rcpt.RunID)
	if err != nil || len(calls) != 3 {
		t.Fatalf("stored %+v, %v", calls, err)
	}
	for i, c := range calls {
		if c.Step != i || c.Result.Status != chat.ToolRan || c.Result.Text != want[i] || c.Result.Size != len(want[i]) {
			t.Errorf("call %d stored %+v", i, c)
		}
	}
	if calls[2].Result.Server != "fs" || calls[2].Result.Tool != "read_file" {
		t.Errorf("read_file stored as %+v", calls[2].Result)
	}
}

// A fault after a tool's result (the next model call gets 503 until Tier 1 gives up): the
// retry resumes from the stored result, its request carries it, and the tool server saw
// exactly one call.
func TestRetryAfterAToolResultCarriesItAndRunsNothingAgain(t *testing.T) {
	t.Parallel()
	ev, wire := everything(t)
	r := newRig(t, ev)
	r.srv.Push(demo.AskTools(demo.Call{Function: "echo", Arguments: `{"message":"once"}`}),
		demo.Overloaded(), demo.Overloaded(), demo.Overloaded())
	rcpt := r.post(t, "echo once")
	events := r.run(t, context.Background(), rcpt, runAll, 0)
	last := events[len(events)-1]
	if last.Kind != chat.EventFailed || last.Class.Class != chat.Overloaded || !last.Class.Retryable {
		t.Fatalf("ended %+v", last)
	}
	retry, err := r.db.RetryRun(rcpt.RunID, "m", false)
	if err != nil {
		t.Fatal(err)
	}
	events = r.run(t, context.Background(), retry, runAll, 0)
	if last := events[len(events)-1]; last.Kind != chat.EventFinished {
		t.Fatalf("the retry ended %+v", last)
	}
	reqs := r.srv.Received()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 1 + 3 + 1", len(reqs))
	}
	if got := demotest.ToolResults(reqs[4]); !reflect.DeepEqual(got, []string{"Echo: once"}) {
		t.Errorf("the retry carried %q", got)
	}
	if n := len(sent(t, wire, "tools/call")); n != 1 {
		t.Errorf("server-everything saw %d calls, want 1", n)
	}
	live, err := r.db.Transcript(r.ses.ID)
	if err != nil || len(live) != 2 || live[1].RunID != retry.RunID || len(live[1].ToolCalls) != 1 ||
		!strings.Contains(live[1].Content, "Echo: once") {
		t.Errorf("live %+v, %v", live, err)
	}
}

// A run stops at its limit of steps and says so; the last calls are stored refused, and no
// request goes past the limit.
func TestStepsAreBounded(t *testing.T) {
	t.Parallel()
	ev, wire := everything(t)
	r := newRig(t, ev)
	r.srv.Push(demo.Times(3, demo.AskTools(demo.Call{Function: "echo", Arguments: `{"message":"again"}`}))...)
	rcpt := r.post(t, "loop")
	events := r.run(t, context.Background(), rcpt, runAll, 2)
	last := events[len(events)-1]
	if last.Kind != chat.EventFinished || last.StepLimit != 2 || r.srv.Requests() != 2 {
		t.Fatalf("ended %+v after %d requests", last, r.srv.Requests())
	}
	if n := len(sent(t, wire, "tools/call")); n != 1 {
		t.Errorf("server-everything saw %d calls, want 1", n)
	}
	calls, _ := r.db.ToolCalls(rcpt.RunID)
	if len(calls) != 2 || calls[1].Result.Status != chat.ToolRefused || calls[1].Result.Text != "Not run: the run reached its limit of 2 steps." {
		t.Errorf("stored %+v", calls)
	}
	if notes := chat.RunNotes(last, "/tools turns them on"); len(notes) != 1 || notes[0] != "stopped after 2 steps, the limit of a run: the model's last call (echo) was not run" {
		t.Errorf("notes %q", notes)
	}
}

// A tool that returns the endpoint's key (here server-everything's echo, given it written in
// JSON escapes the client cannot read as the key) has it taken out of its result: in the
// event, the history and the next request to the model.
func TestAToolResultHoldingTheKeyIsRedacted(t *testing.T) {
	t.Parallel()
	const key = "sk-tool-echoed-0123456789"
	escaped := strings.ReplaceAll(key, "o", `\u006f`)
	ev, wire := everything(t)
	r := newRig(t, ev)
	r.key = key
	r.srv.Push(demo.AskTools(demo.Call{Function: "echo", Arguments: `{"message":"` + escaped + `"}`}))
	rcpt := r.post(t, "echo it")
	events := r.run(t, context.Background(), rcpt, runAll, 0)
	if n := len(sent(t, wire, "tools/call")); n != 1 {
		t.Fatalf("server-everything saw %d calls, want 1", n)
	}
	const want = "Echo: [redacted]"
	var shown []string
	for _, ev := range events {
		if ev.Kind == chat.EventToolResult {
			shown = append(shown, ev.Result.Text)
		}
	}
	if len(shown) != 1 || shown[0] != want {
		t.Errorf("shown %q, want %q", shown, want)
	}
	if calls, err := r.db.ToolCalls(rcpt.RunID); err != nil || len(calls) != 1 || calls[0].Result.Text != want {
		t.Errorf("stored %+v, %v", calls, err)
	}
	if got := demotest.ToolResults(r.srv.Received()[1]); len(got) != 1 || got[0] != want {
		t.Errorf("the model was sent %q", got)
	}
}
