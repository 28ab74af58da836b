package toolloop_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"parley/agent"
	"parley/history"
	"parley/history/historytest"
	"parley/internal/chat"
	"parley/internal/chat/chattest"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
	"parley/internal/mcp"
	"parley/internal/toolloop"
	"parley/retry"
)

// fixture is the entry point of an npm server of scripts/mcp (installed by .ci/run with npm
// ci). The tests that need one skip under -short, which needs only Go; otherwise a missing
// one fails them, saying how to install it.
func fixture(t *testing.T, pkg string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs node and the npm MCP servers of scripts/mcp; -short needs only Go")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not installed: apt-get install nodejs npm, then npm ci --prefix scripts/mcp (.ci/run does both)")
	}
	path, err := filepath.Abs(filepath.Join("..", "..", "scripts", "mcp", "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s is not installed (%v): run npm ci --prefix scripts/mcp from the repository's root (.ci/run does)", pkg, err)
	}
	return path
}

// everything is server-everything on stdio with its wire written to the file returned: what
// it was sent, one JSON-RPC message a line.
func everything(t *testing.T) (mcp.Server, string) {
	wire := filepath.Join(t.TempDir(), "to-server.jsonl")
	return mcp.Server{Name: "everything", Command: []string{"sh", "-c", `tee "$WIRE" | node "$ENTRY" stdio`},
		Env: map[string]string{"WIRE": wire, "ENTRY": fixture(t, "server-everything")}}, wire
}

// filesystem is server-filesystem on stdio, allowed dir.
func filesystem(t *testing.T, dir string) mcp.Server {
	return mcp.Server{Name: "fs", Command: []string{"node", fixture(t, "server-filesystem"), dir}}
}

// sent are the JSON-RPC messages a server was sent so far, by method.
func sent(t *testing.T, wire, method string) []json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(wire)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var out []json.RawMessage
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.Method == method {
			out = append(out, m.Params)
		}
	}
	return out
}

// rig is a session's tools, the demo endpoint and a database, as the front ends wire them.
type rig struct {
	box *toolloop.Toolbox
	srv *demo.Server
	db  *history.DB
	ses history.Session
}

// newRig opens servers with every tool on.
func newRig(t *testing.T, servers ...mcp.Server) *rig {
	t.Helper()
	host := mcp.New(servers, nil)
	t.Cleanup(func() { host.Close() })
	var on []string
	for _, s := range servers {
		on = append(on, s.Name)
	}
	db := historytest.Open(t)
	ses, err := db.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	return &rig{box: toolloop.NewToolbox(host, on), srv: demotest.Start(t, demo.Options{}), db: db, ses: ses}
}

// run runs rcpt's run through the loop with gate, recorded as the front ends record it, and
// returns its events.
func (r *rig) run(t *testing.T, ctx context.Context, rcpt history.Receipt, gate toolloop.Gate, maxSteps int) []chat.Event {
	t.Helper()
	_, entries, errs := r.box.Offered(ctx)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	client := agent.NewClient(agent.Endpoint{BaseURL: r.srv.URL(), Model: "m"}, chattest.NewInstant(chattest.Start),
		retry.DefaultPolicy()).WithTools(entries)
	msgs, progress, err := r.db.RunContext(rcpt.RunID)
	if err != nil {
		t.Fatal(err)
	}
	loop := toolloop.Loop{Model: func(ctx context.Context, msgs []chat.Message) <-chan chat.Event { return client.Stream(ctx, msgs) },
		Host: r.box.Host(), Store: r.db, Gate: gate, RunID: rcpt.RunID, MaxSteps: maxSteps, Steps: progress.Steps, Seam: progress.Seam}
	var events []chat.Event
	for ev := range r.db.Record(rcpt.RunID, loop.Run(ctx, msgs), chat.SystemClock{}) {
		if ev.Kind == chat.EventToolAsk {
			ev.Answer <- true
		}
		events = append(events, ev)
	}
	return events
}

// post posts content in the rig's session.
func (r *rig) post(t *testing.T, content string) history.Receipt {
	t.Helper()
	rcpt, err := r.db.Post(r.ses.ID, content, "m", false)
	if err != nil {
		t.Fatal(err)
	}
	return rcpt
}

// runAll is a gate that lets every call run.
func runAll(mcp.Tool) (toolloop.Decision, string) { return toolloop.Run, "" }

// results are the tool messages of a request, in order.
func results(req demo.Request) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == "tool" {
			out = append(out, m.Content)
		}
	}
	return out
}
