package mcp_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"parley/internal/chat/chattest"
	"parley/internal/mcp"
	"parley/internal/testenv"
)

// serverEnv, when set, makes the test binary an MCP server on stdio instead of running the
// tests: the Go SDK's own server side, with a tool per name in it (comma-separated), beside
// die and wait. pidEnv names a file it writes its process id to.
const (
	serverEnv = "PARLEY_MCP_TEST_SERVER"
	pidEnv    = "PARLEY_MCP_TEST_PIDFILE"
)

func TestMain(m *testing.M) {
	if tools := os.Getenv(serverEnv); tools != "" {
		if file := os.Getenv(pidEnv); file != "" {
			if err := os.WriteFile(file, []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
				panic(err)
			}
		}
		if err := newTestServer(strings.Split(tools, ",")).Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "test server:", err)
		}
		busy.Wait()
		return
	}
	os.Exit(m.Run())
}

// echoArgs are the arguments of the test server's echo tools.
type echoArgs struct {
	Text string `json:"text"`
}

// busy is the test server's busy calls: its process stays until they end, as node's does
// while a server has work under way.
var busy sync.WaitGroup

// newTestServer is an MCP server whose tools are named echoes (each says "NAME: TEXT"), die
// (the process exits mid-call, saying so on stderr), wait (returns only when cancelled,
// saying on stderr that it was) and busy (a minute of work that neither its cancellation nor
// the end of the server's input stops).
func newTestServer(echoes []string) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "parley-test", Version: "1"}, nil)
	for _, name := range echoes {
		sdk.AddTool(s, &sdk.Tool{Name: name, Description: "Says its text back."},
			func(_ context.Context, _ *sdk.CallToolRequest, in echoArgs) (*sdk.CallToolResult, any, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: name + ": " + in.Text}}}, nil, nil
			})
	}
	sdk.AddTool(s, &sdk.Tool{Name: "die", Description: "Exits mid-call."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "dying on purpose")
			os.Exit(1)
			return nil, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "busy", Description: "Works for a minute, cancelled or not."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			busy.Add(1)
			defer busy.Done()
			fmt.Fprintln(os.Stderr, "busy: called")
			<-time.After(time.Minute) // the work: what it does is nothing the test reads
			return &sdk.CallToolResult{}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "wait", Description: "Waits until cancelled."},
		func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "wait: called")
			<-ctx.Done()
			fmt.Fprintln(os.Stderr, "wait: cancelled by the client")
			return nil, nil, ctx.Err()
		})
	return s
}

// testServer configures the test binary as the stdio server name, with echo tools named
// echoes (just "echo" when none are given); its process id goes to pidFile when one is named.
func testServer(name, pidFile string, echoes ...string) mcp.Server {
	if len(echoes) == 0 {
		echoes = []string{"echo"}
	}
	env := map[string]string{serverEnv: strings.Join(echoes, ",")}
	if pidFile != "" {
		env[pidEnv] = pidFile
	}
	return mcp.Server{Name: name, Command: []string{os.Args[0]}, Env: env}
}

// fixture is the entry point of the npm package pkg of scripts/mcp (testenv.NodeModule says
// when a test that needs one skips); mcptest's Fixture is the same, but mcptest imports mcp.
func fixture(t *testing.T, pkg string) string {
	t.Helper()
	return testenv.NodeModule(t, "scripts/mcp", "@modelcontextprotocol/"+pkg, "dist/index.js")
}

// everything configures @modelcontextprotocol/server-everything on stdio, run by node.
func everything(t *testing.T) mcp.Server {
	return mcp.Server{Name: "everything", Command: []string{"node", fixture(t, "server-everything"), "stdio"}}
}

// filesystem configures @modelcontextprotocol/server-filesystem on stdio, allowed dir.
func filesystem(t *testing.T, dir string) mcp.Server {
	return mcp.Server{Name: "fs", Command: []string{"node", fixture(t, "server-filesystem"), dir}}
}

// open returns a Host for servers that logs into the buffer returned, closed when the test
// ends.
func open(t *testing.T, servers ...mcp.Server) (*mcp.Host, *chattest.Buffer) {
	t.Helper()
	log := &chattest.Buffer{}
	h := mcp.New(servers, slog.New(slog.NewTextHandler(log, nil)))
	t.Cleanup(func() {
		if err := h.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return h, log
}

// within runs f, failing the test if it takes longer than limit: what must not hang.
func within[T any](t *testing.T, limit time.Duration, f func() (T, error)) (T, time.Duration, error) {
	t.Helper()
	type outcome struct {
		v   T
		err error
	}
	done := make(chan outcome, 1)
	start := time.Now()
	go func() {
		v, err := f()
		done <- outcome{v, err}
	}()
	select {
	case o := <-done:
		return o.v, time.Since(start), o.err
	case <-time.After(limit):
		t.Fatalf("no answer within %v", limit)
		panic("unreachable")
	}
}

// pid reads the process id a server wrote to file.
func pid(t *testing.T, file string) int {
	t.Helper()
	var n int
	chattest.WaitFor(t, "the server's process id in "+file, func() bool {
		b, err := os.ReadFile(file)
		n, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && n > 0
	})
	return n
}

// gone reports whether process id has ended and been waited for: a zombie still exists.
func gone(id int) bool { return syscall.Kill(id, 0) == syscall.ESRCH }
