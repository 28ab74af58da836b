package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"parley/internal/chat/chattest"
	"parley/internal/mcp"
)

// The tests here run the reference servers of the MCP project, from the npm registry
// (scripts/mcp, pinned), as parley's users run them.

func TestListsRealServersAsOpenAITools(t *testing.T) {
	t.Parallel()
	h, log := open(t, everything(t), filesystem(t, t.TempDir()))
	ctx := context.Background()
	want := map[string][]string{
		"everything": {"echo", "get-sum", "get-tiny-image", "trigger-long-running-operation"},
		"fs":         {"read_text_file", "write_file", "list_directory"},
	}
	for _, server := range h.Servers() {
		start := time.Now()
		tools, err := h.Tools(ctx, server)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: started and listed %d tools in %v", server, len(tools), time.Since(start))
		names := map[string]bool{}
		total := 0
		for _, tool := range tools {
			names[tool.Name] = true
			checkEntry(t, tool)
			if tool.Function != tool.Name {
				t.Errorf("%s's %s is offered as %s: its own name is free and safe", server, tool.Name, tool.Function)
			}
			if got, ok := h.Lookup(tool.Function); !ok || got.Server != server || got.Name != tool.Name {
				t.Errorf("Lookup(%q) = %+v, %v", tool.Function, got, ok)
			}
			total += len(tool.Entry)
		}
		for _, name := range want[server] {
			if !names[name] {
				t.Errorf("%s lists no %s: %v", server, name, names)
			}
		}
		t.Logf("%s: %d tools, entries of %d bytes in all (about %d tokens)", server, len(tools), total, total/4)
	}
	chattest.WaitFor(t, "server-everything's stderr in the log", func() bool {
		return strings.Contains(log.String(), `msg="mcp server stderr" mcp_server=everything text="Starting default (STDIO) server..."`)
	})
}

// checkEntry holds a tool's entry to what OpenAI takes: a function with a safe name, the
// tool's description and its schema as parameters.
func checkEntry(t *testing.T, tool mcp.Tool) {
	t.Helper()
	var entry struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(tool.Entry, &entry); err != nil {
		t.Fatalf("%s: %v", tool.Name, err)
	}
	f := entry.Function
	if entry.Type != "function" || f.Name != tool.Function || f.Description != tool.Description || !sameJSON(f.Parameters, tool.InputSchema) {
		t.Errorf("%s's entry: %s", tool.Name, tool.Entry)
	}
	var schema struct{ Type string }
	if err := json.Unmarshal(f.Parameters, &schema); err != nil || schema.Type != "object" {
		t.Errorf("%s's parameters are not an object schema: %s", tool.Name, f.Parameters)
	}
	if !safeName(f.Name) {
		t.Errorf("%s is offered as %q, which OpenAI refuses", tool.Name, f.Name)
	}
}

func safeName(s string) bool {
	return len(s) >= 1 && len(s) <= 64 && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == ""
}

func sameJSON(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

func TestCallsEverythingsTools(t *testing.T) {
	t.Parallel()
	h, _ := open(t, everything(t))
	ctx := context.Background()
	start := time.Now()
	if err := h.Start(ctx, "everything"); err != nil {
		t.Fatal(err)
	}
	t.Logf("server-everything started in %v", time.Since(start))
	for _, c := range []struct {
		tool, args, text string
	}{
		{"echo", `{"message":"hello, tools"}`, "Echo: hello, tools"},
		{"get-sum", `{"a":2,"b":40}`, "The sum of 2 and 40 is 42."},
	} {
		start := time.Now()
		res, err := h.Call(ctx, "everything", c.tool, json.RawMessage(c.args))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s answered in %v", c.tool, time.Since(start))
		if res != (mcp.Result{Text: c.text, Size: len(c.text)}) {
			t.Errorf("%s: %+v, want %q", c.tool, res, c.text)
		}
	}
	res, err := h.Call(ctx, "everything", "get-tiny-image", nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(res.Text, "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "[image image/png, ") || !strings.HasSuffix(lines[1], " bytes, not passed on]") {
		t.Errorf("get-tiny-image: %q", res.Text)
	}
	if res.Size <= len(res.Text) {
		t.Errorf("get-tiny-image's size %d does not count the image", res.Size)
	}
}

func TestReadsAFileThroughServerFilesystem(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "notes.md")
	const text = "# Notes\nwritten by the test\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	h, _ := open(t, filesystem(t, dir))
	ctx := context.Background()
	args, _ := json.Marshal(map[string]string{"path": path})
	res, err := h.Call(ctx, "fs", "read_text_file", args)
	if err != nil {
		t.Fatal(err)
	}
	if res != (mcp.Result{Text: text, Size: len(text)}) {
		t.Errorf("read_text_file: %+v", res)
	}

	// Outside the allowed directory: the tool fails, as a result.
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("not for the model"), 0o600); err != nil {
		t.Fatal(err)
	}
	args, _ = json.Marshal(map[string]string{"path": outside})
	res, err = h.Call(ctx, "fs", "read_text_file", args)
	if err != nil {
		t.Fatalf("a tool's failure is no Go error: %v", err)
	}
	if !res.IsError || !strings.Contains(res.Text, "Access denied") || strings.Contains(res.Text, "not for the model") {
		t.Errorf("reading outside: %+v", res)
	}
}

func TestSameToolNamesOnTwoServers(t *testing.T) {
	t.Parallel()
	first, second := everything(t), everything(t)
	first.Name, second.Name = "alpha", "beta"
	h, _ := open(t, first, second)
	ctx := context.Background()
	offered := map[string]string{}
	for _, server := range h.Servers() {
		tools, err := h.Tools(ctx, server)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools {
			if tool.Name == "echo" {
				offered[server] = tool.Function
			}
		}
	}
	if offered["alpha"] != "echo" || offered["beta"] != "beta_echo" {
		t.Fatalf("echo is offered as %v; want alpha's as echo, beta's as beta_echo", offered)
	}
	tool, ok := h.Lookup("beta_echo")
	if !ok || tool.Server != "beta" || tool.Name != "echo" {
		t.Fatalf("Lookup(beta_echo) = %+v, %v", tool, ok)
	}
	res, err := h.Call(ctx, tool.Server, tool.Name, []byte(`{"message":"to beta"}`))
	if err != nil || res.Text != "Echo: to beta" {
		t.Fatalf("%+v, %v", res, err)
	}
	// Listed again, in the other order, nothing is renamed.
	for _, server := range []string{"beta", "alpha"} {
		tools, err := h.Tools(ctx, server)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools {
			if tool.Name == "echo" && tool.Function != offered[server] {
				t.Errorf("%s's echo became %s", server, tool.Function)
			}
		}
	}
}

// TestCancelReachesServerEverything cancels server-everything's long-running tool and reads
// the wire at the server's end (tee on both sides of its stdio): the cancellation arrives
// with the call's id, and the server, which finishes the operation anyway, never sends its
// result; the same call not cancelled sends one.
func TestCancelReachesServerEverything(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in, out := filepath.Join(dir, "to-server.jsonl"), filepath.Join(dir, "from-server.jsonl")
	srv := everything(t)
	srv.Env = map[string]string{"WIRE_IN": in, "WIRE_OUT": out, "ENTRY": srv.Command[1]}
	srv.Command = []string{"sh", "-c", `tee "$WIRE_IN" | node "$ENTRY" stdio | tee "$WIRE_OUT"`}
	h, _ := open(t, srv)
	const tool = "trigger-long-running-operation"

	// Not cancelled, the operation sends its result.
	res, err := h.Call(context.Background(), "everything", tool, []byte(`{"duration":0.2,"steps":1}`))
	if err != nil || !strings.HasPrefix(res.Text, "Long running operation completed") {
		t.Fatalf("%+v, %v", res, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	calling := make(chan error, 1)
	go func() {
		_, err := h.Call(ctx, "everything", tool, []byte(`{"duration":1,"steps":1}`))
		calling <- err
	}()
	var id string
	chattest.WaitFor(t, "the call at the server", func() bool {
		for _, m := range wire(t, in) {
			if m.Method == "tools/call" && strings.Contains(string(m.Params), `"duration":1,`) {
				id = string(m.ID)
			}
		}
		return id != ""
	})
	cancel()
	cancelled := time.Now()
	select {
	case err := <-calling:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
		t.Logf("the call returned %v after the cancellation", time.Since(cancelled))
	case <-time.After(500 * time.Millisecond):
		t.Fatal("the cancelled call did not return within 500ms (the operation takes 1s)")
	}
	chattest.WaitFor(t, "notifications/cancelled for call "+id+" at the server", func() bool {
		for _, m := range wire(t, in) {
			var p struct{ RequestID json.RawMessage }
			if m.Method == "notifications/cancelled" && json.Unmarshal(m.Params, &p) == nil && string(p.RequestID) == id {
				return true
			}
		}
		return false
	})

	// The same operation, called after the cancelled one, ends after it: its result shows the
	// server went on, and that what it sent before holds no result for the cancelled call.
	if res, err := h.Call(context.Background(), "everything", tool, []byte(`{"duration":1,"steps":1}`)); err != nil || !strings.HasPrefix(res.Text, "Long running operation completed") {
		t.Fatalf("%+v, %v", res, err)
	}
	for _, m := range wire(t, out) {
		if m.Method == "" && string(m.ID) == id {
			t.Fatalf("the server answered the cancelled call: %+v", m)
		}
	}
}

// message is one JSON-RPC message on the wire.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
}

// wire reads the messages written to file so far, one a line.
func wire(t *testing.T, file string) []message {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var msgs []message
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m message
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			msgs = append(msgs, m)
		}
	}
	return msgs
}

// A server's process has the environment it is given and nothing of parley's own: the test
// process's variables (its PATH, HOME, whatever key it holds) do not reach it.
func TestAServerSeesOnlyItsEnvironment(t *testing.T) {
	t.Parallel()
	srv := everything(t)
	srv.Env = map[string]string{"GIVEN": "yes", "LANG": "C.UTF-8"}
	h, _ := open(t, srv)
	res, err := h.Call(context.Background(), "everything", "get-env", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]string
	if err := json.Unmarshal([]byte(res.Text), &env); err != nil {
		t.Fatalf("get-env said %q: %v", res.Text, err)
	}
	if !reflect.DeepEqual(env, srv.Env) {
		t.Errorf("the server saw %v, want %v", env, srv.Env)
	}
}
