// Package mcptest runs the MCP reference servers of scripts/mcp (from the npm registry,
// pinned, installed by .ci/run with npm ci) for the tests of the parts that call tools.
package mcptest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"parley/internal/mcp"
	"parley/internal/testenv"
)

// Fixture is the entry point of the npm package pkg of scripts/mcp. A test that needs one
// skips under -short; a missing one skips it on a machine with only Go, saying how to install
// it, and fails it in CI (testenv.Strict).
func Fixture(t testing.TB, pkg string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs node and the npm MCP servers of scripts/mcp; -short needs only Go")
	}
	testenv.Tool(t, "node", "apt-get install nodejs npm, then npm ci --prefix scripts/mcp")
	_, here, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(here), "..", "..", "..", "scripts", "mcp", "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js")
	if _, err := os.Stat(path); err != nil {
		testenv.Missing(t, pkg, "npm ci --prefix scripts/mcp from the repository's root")
	}
	return path
}

// Everything is server-everything on stdio, named everything, with what it is sent written
// to the file wire returns, one JSON-RPC message a line: what the server saw.
func Everything(t testing.TB) (srv mcp.Server, wire string) {
	t.Helper()
	wire = filepath.Join(t.TempDir(), "to-server.jsonl")
	return mcp.Server{Name: "everything", Command: []string{"sh", "-c", `tee "$WIRE" | node "$ENTRY" stdio`},
		Env: map[string]string{"WIRE": wire, "ENTRY": Fixture(t, "server-everything")}}, wire
}

// Filesystem is server-filesystem on stdio, named fs, allowed dir.
func Filesystem(t testing.TB, dir string) mcp.Server {
	t.Helper()
	return mcp.Server{Name: "fs", Command: []string{"node", Fixture(t, "server-filesystem"), dir}}
}

// Sent returns the params of the JSON-RPC messages of method written to wire so far.
func Sent(t testing.TB, wire, method string) []json.RawMessage {
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
