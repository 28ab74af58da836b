package toolloop_test

import (
	"context"
	"testing"

	"parley/agent"
	"parley/history"
	"parley/history/historytest"
	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/chat/chattest"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
	"parley/internal/mcp"
	"parley/internal/mcp/mcptest"
	"parley/internal/toolloop"
	"parley/retry"
)

// rig is a session's tools, the demo endpoint and a database, as the front ends wire them.
type rig struct {
	box *toolloop.Toolbox
	srv *demo.Server
	db  *history.DB
	ses stored.Session
	// key is the API key the endpoint is called with.
	key string
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
	return &rig{box: toolloop.NewToolbox(host, on, nil), srv: demotest.Start(t, demo.Options{}), db: db, ses: ses}
}

// run runs rcpt's run through the loop with gate, recorded as the front ends record it, and
// returns its events.
func (r *rig) run(t *testing.T, ctx context.Context, rcpt stored.Receipt, gate toolloop.Gate, maxSteps int) []chat.Event {
	t.Helper()
	_, entries, errs := r.box.Offered(ctx)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	client := agent.NewClient(agent.Endpoint{BaseURL: r.srv.URL(), Model: "m", APIKey: r.key}, chattest.NewInstant(chattest.Start),
		retry.DefaultPolicy()).WithTools(entries)
	msgs, progress, err := r.db.RunContext(rcpt.RunID)
	if err != nil {
		t.Fatal(err)
	}
	loop := toolloop.Loop{Model: func(ctx context.Context, msgs []chat.Message) <-chan chat.Event { return client.Stream(ctx, msgs) },
		Host: r.box.Host(), Store: r.db, Gate: gate, RunID: rcpt.RunID, MaxSteps: maxSteps, Steps: progress.Steps, Seam: progress.Seam,
		Redactor: client.Redactor()}
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
func (r *rig) post(t *testing.T, content string) stored.Receipt {
	t.Helper()
	rcpt, err := r.db.Post(r.ses.ID, content, "m", false)
	if err != nil {
		t.Fatal(err)
	}
	return rcpt
}

// runAll is a gate that lets every call run.
func runAll(mcp.Tool) (toolloop.Decision, string) { return toolloop.Run, "" }

// everything, filesystem and sent are mcptest's, named short for the tests here.
var (
	everything = mcptest.Everything
	filesystem = mcptest.Filesystem
	sent       = mcptest.Sent
)
