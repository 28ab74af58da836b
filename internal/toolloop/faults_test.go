package toolloop_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"parley/internal/chat"
	"parley/internal/chat/chattest"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
	"parley/internal/mcp"
)

// longCall asks for server-everything's long-running tool: 10 s in 10 steps.
var longCall = demo.Call{Function: "trigger-long-running-operation", Arguments: `{"duration":10,"steps":10}`}

// Cancelling the run while a tool runs cancels the call through MCP (the server is sent
// notifications/cancelled), stores it cancelled, and ends the run cancelled at once.
func TestCancelDuringACallCancelsItThroughMCP(t *testing.T) {
	t.Parallel()
	ev, wire := everything(t)
	r := newRig(t, ev)
	r.srv.Push(demo.AskTools(longCall))
	rcpt := r.post(t, "take your time")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		chattest.WaitFor(t, "the call at the server", func() bool { return len(sent(t, wire, "tools/call")) == 1 })
		cancel()
	}()
	start := time.Now()
	events := r.run(t, ctx, rcpt, runAll, 0)
	if last := events[len(events)-1]; last.Kind != chat.EventCancelled || time.Since(start) > 5*time.Second {
		t.Fatalf("ended %+v after %v (the operation takes 10s)", last, time.Since(start))
	}
	chattest.WaitFor(t, "notifications/cancelled at the server", func() bool { return len(sent(t, wire, "notifications/cancelled")) == 1 })
	calls, err := r.db.ToolCalls(rcpt.RunID)
	if err != nil || len(calls) != 1 || calls[0].Result.Status != chat.ToolCancelled {
		t.Fatalf("stored %+v, %v", calls, err)
	}
	run, err := r.db.Run(rcpt.RunID)
	if err != nil || run.Status != chat.StatusCancelled {
		t.Errorf("run %+v, %v", run, err)
	}
	if r.srv.Requests() != 1 {
		t.Errorf("%d requests: something was sent after the cancel", r.srv.Requests())
	}
}

// A server whose command does not exist is left out with a line naming it, and the others
// are offered all the same.
func TestAServerThatCannotStartIsNamed(t *testing.T) {
	t.Parallel()
	ev, _ := everything(t)
	r := newRig(t, ev, mcp.Server{Name: "ghost", Command: []string{"parley-no-such-server"}})
	tools, _, errs := r.box.Offered(context.Background())
	if len(errs) != 1 || errs[0].Error() != `mcp server "ghost": command "parley-no-such-server" not found: check [mcp.ghost] command in config.toml` {
		t.Fatalf("errors %v", errs)
	}
	if len(tools) == 0 || tools[0].Server != "everything" {
		t.Errorf("offered %+v", tools)
	}
}

// A server that exits mid-call ends the call failed, saying so with its name; the run goes
// on (the model is told), and what was said is stored.
func TestAServerThatExitsMidCallIsNamed(t *testing.T) {
	t.Parallel()
	ev, wire := everything(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	ev.Env["PIDFILE"] = pidFile
	ev.Command = []string{"sh", "-c", `echo $$ > "$PIDFILE"; tee "$WIRE" | node "$ENTRY" stdio`}
	r := newRig(t, ev)
	r.srv.Push(demo.AskTools(longCall))
	rcpt := r.post(t, "go")
	go func() {
		chattest.WaitFor(t, "the call at the server", func() bool { return len(sent(t, wire, "tools/call")) == 1 })
		b, _ := os.ReadFile(pidFile)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			syscall.Kill(-pid, syscall.SIGKILL) // its process group: the server and all it started

		}
	}()
	start := time.Now()
	events := r.run(t, context.Background(), rcpt, runAll, 0)
	if last := events[len(events)-1]; last.Kind != chat.EventFinished || time.Since(start) > 8*time.Second {
		t.Fatalf("ended %+v after %v", last, time.Since(start))
	}
	calls, err := r.db.ToolCalls(rcpt.RunID)
	if err != nil || len(calls) != 1 || calls[0].Result.Status != chat.ToolFailed ||
		!strings.HasPrefix(calls[0].Result.Text, `mcp server "everything": stopped during the call to "trigger-long-running-operation"`) {
		t.Fatalf("stored %+v, %v", calls, err)
	}
	if got := demotest.ToolResults(r.srv.Received()[1]); len(got) != 1 || got[0] != calls[0].Result.Text {
		t.Errorf("the model was told %q", got)
	}
}
