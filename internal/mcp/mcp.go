// Package mcp is parley's host for MCP tool servers: it starts each configured server on first
// use (a command speaking MCP on stdio, or a streamable HTTP endpoint), lists its tools as the
// OpenAI `tools` entries the model is offered, calls them with a timeout and cancellation that
// reach the server, and closes them all when parley ends. It uses the official Go SDK for the
// client side, and imports nothing of parley's.
//
// A Host is built from the configured servers and starts none of them: Tools or Call starts a
// server the first time it is used. A server that failed to start, or that stopped, stays
// stopped with its error until Start is asked to start it again, so a broken server is never
// retried behind the operator's back.
//
// Every error names the server, in one line, with the fix where there is one:
//
//	mcp server "fs": command "npx-typo" not found: check [mcp.fs] command in config.toml
//
// A tool that ran and failed is not an error: its Result has IsError set, and its text goes
// back to the model. A Go error from Call is a call that did not complete: the server could not
// be started or stopped mid-call, the call timed out, or ctx was cancelled (errors.Is(err,
// context.Canceled)); the server was told of a timeout or cancellation with MCP's
// notifications/cancelled.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultCallTimeout bounds a tool call, and a listing of tools, when a server sets no timeout.
const DefaultCallTimeout = 60 * time.Second

// DefaultStartTimeout bounds a server's start, from running its command (or reaching its URL)
// to the end of MCP's initialize, when a server sets none. npx fetching a server the first time
// takes a few seconds.
const DefaultStartTimeout = 30 * time.Second

// Server is how to reach one tool server: [mcp.NAME] in config.toml.
type Server struct {
	// Name is the NAME of [mcp.NAME]: how errors name the server, and the prefix of its tools'
	// names when another server's tool has taken the bare name.
	Name string
	// Command and Env start a server on this machine that speaks MCP on stdin and stdout: the
	// program and its arguments, and its whole environment: nothing of parley's own reaches
	// it unless it is in Env (config.toml's [mcp.NAME] gives it a few variables, see
	// config.BaseEnv). Its stderr goes to the Host's log.
	Command []string
	Env     map[string]string
	// URL and Headers reach a streamable HTTP server instead; Headers are sent with every
	// request. A Server has a Command or a URL, never both.
	URL     string
	Headers map[string]string
	// Timeout bounds each tool call; 0 is DefaultCallTimeout.
	Timeout time.Duration
	// StartTimeout bounds the start; 0 is DefaultStartTimeout.
	StartTimeout time.Duration
}

// State is where a server is in its life.
type State int

const (
	// NotStarted: nothing has used the server yet (or its start was cancelled).
	NotStarted State = iota
	// Starting: its command runs, or its URL is being reached, and MCP's initialize is under way.
	Starting
	// Running: it answered initialize and has not stopped.
	Running
	// Stopped: its start failed, it stopped (crashed, exited, ended the session), or the Host
	// was closed. Only Start starts it again.
	Stopped
)

func (s State) String() string {
	switch s {
	case NotStarted:
		return "not started"
	case Starting:
		return "starting"
	case Running:
		return "running"
	default:
		return "stopped"
	}
}

// Host runs the configured tool servers. It is safe for concurrent use.
type Host struct {
	log     *slog.Logger
	servers map[string]*server
	// closing is cancelled by Close: it ends the starts and calls in flight.
	closing context.Context
	close   context.CancelFunc

	mu sync.Mutex
	// names are the function names given out, never taken back while the Host lives (see
	// Tool.Function); tools are the tools last listed, by function name.
	names map[toolKey]string
	tools map[string]Tool
}

// toolKey is a tool's identity: its server and its own name.
type toolKey struct{ server, tool string }

// New returns a Host for servers, started by none of it. log receives the stderr of stdio
// servers, line by line, and what the Host notes of their lives; nil discards it.
func New(servers []Server, log *slog.Logger) *Host {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	closing, cancel := context.WithCancel(context.Background())
	h := &Host{log: log, servers: map[string]*server{}, closing: closing, close: cancel,
		names: map[toolKey]string{}, tools: map[string]Tool{}}
	for _, cfg := range servers {
		h.servers[cfg.Name] = &server{cfg: cfg, log: log.With("mcp_server", cfg.Name), closing: closing}
	}
	return h
}

// Servers returns the names of the configured servers, sorted.
func (h *Host) Servers() []string { return slices.Sorted(maps.Keys(h.servers)) }

// State says where server is in its life, without starting it; for Stopped, the error says
// why (the same error its next use returns).
func (h *Host) State(server string) (State, error) {
	s, err := h.server(server)
	if err != nil {
		return Stopped, err
	}
	return s.state()
}

// Start starts server when it is not running: the first time, or again after it failed to
// start or stopped. A server already running is left as it is.
func (h *Host) Start(ctx context.Context, server string) error {
	s, err := h.server(server)
	if err != nil {
		return err
	}
	_, _, err = s.use(ctx, true)
	return err
}

// Tools lists server's tools, starting it when nothing has yet. Each is given its function
// name here (see Tool.Function), so that Lookup finds it.
func (h *Host) Tools(ctx context.Context, server string) ([]Tool, error) {
	s, err := h.server(server)
	if err != nil {
		return nil, err
	}
	listed, err := s.list(ctx)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	maps.DeleteFunc(h.tools, func(_ string, t Tool) bool { return t.Server == server })
	tools := make([]Tool, 0, len(listed))
	for _, l := range listed {
		t, err := newTool(server, h.function(toolKey{server, l.Name}), l)
		if err != nil {
			return nil, s.errorf("tool %q: %v", l.Name, err)
		}
		h.tools[t.Function] = t
		tools = append(tools, t)
	}
	return tools, nil
}

// Listed returns the tools last listed, of every server that has been started; it starts
// none.
func (h *Host) Listed() []Tool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Collect(maps.Values(h.tools))
}

// Lookup finds the tool the model called by its function name, among the tools last listed.
func (h *Host) Lookup(function string) (Tool, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ok := h.tools[function]
	return t, ok
}

// Call calls server's tool with args, a JSON object (empty or null: no arguments), starting
// the server when nothing has yet. The call is bounded by the server's timeout and by ctx;
// either ending it tells the server (notifications/cancelled) and returns an error wrapping
// context.DeadlineExceeded or ctx's error. A result with IsError is the tool's own failure,
// not an error.
func (h *Host) Call(ctx context.Context, server, tool string, args json.RawMessage) (Result, error) {
	s, err := h.server(server)
	if err != nil {
		return Result{}, err
	}
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	var object map[string]json.RawMessage
	if err := json.Unmarshal(args, &object); err != nil {
		return Result{}, s.errorf("tool %q: the arguments are not a JSON object (%v); nothing was called", tool, err)
	}
	return s.call(ctx, tool, args)
}

// Close ends every call and start in flight and closes every server: a stdio server's input
// is closed, then it is sent SIGTERM if it has not exited, then killed, and waited for. The
// errors are those of servers that did not exit cleanly.
func (h *Host) Close() error {
	h.close()
	names := h.Servers()
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() { errs[i] = h.servers[name].stop() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// server returns the server called name, or the error that none is.
func (h *Host) server(name string) (*server, error) {
	if s, ok := h.servers[name]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("mcp server %q is not configured: add [mcp.%s] to config.toml (configured: %s)", name, name, h.configured())
}

func (h *Host) configured() string {
	if len(h.servers) == 0 {
		return "none"
	}
	return strings.Join(h.Servers(), ", ")
}
