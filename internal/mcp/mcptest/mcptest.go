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
	"testing"

	"parley/internal/mcp"
	"parley/internal/testenv"
)

// Fixture is the entry point of the npm package pkg of scripts/mcp (testenv.NodeModule says
// when a test that needs one skips).
func Fixture(t testing.TB, pkg string) string {
	t.Helper()
	return testenv.NodeModule(t, "scripts/mcp", "@modelcontextprotocol/"+pkg, "dist/index.js")
}

// Everything is server-everything on stdio, named everything, with what it is sent written
// to the file wire returns, one JSON-RPC message a line: what the server saw. Its environment
// is the one it is given (a server gets nothing else): the wire, the entry point, and the
// PATH its shell finds node on.
func Everything(t testing.TB) (srv mcp.Server, wire string) {
	t.Helper()
	wire = filepath.Join(t.TempDir(), "to-server.jsonl")
	return mcp.Server{Name: "everything", Command: []string{"sh", "-c", `tee "$WIRE" | node "$ENTRY" stdio`},
		Env: map[string]string{"WIRE": wire, "ENTRY": Fixture(t, "server-everything"), "PATH": os.Getenv("PATH")}}, wire
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
