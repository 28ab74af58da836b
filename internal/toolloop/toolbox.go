package toolloop

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"parley/internal/mcp"
)

// Toolbox is a session's tools: the configured servers, which of their tools are on (offered
// to the model), and which run without asking. It is safe for concurrent use: the chat
// screen changes it while a run's loop reads it.
type Toolbox struct {
	host *mcp.Host
	// allowed are the tools config.toml lets run without asking, by SERVER.TOOL; set once.
	allowed map[string]bool

	mu sync.Mutex
	// servers are the servers with every tool on; tools the single tools on, by
	// SERVER.TOOL; off the single tools turned off on a server that is on.
	servers, tools, off map[string]bool
	// always are the tools that run without asking, by SERVER.TOOL ("a" on the screen).
	always map[string]bool
}

// NewToolbox is host's tools with on turned on: a server's name (every tool of it) or
// SERVER.TOOL; allowed (SERVER.TOOL) run without asking.
func NewToolbox(host *mcp.Host, on, allowed []string) *Toolbox {
	b := &Toolbox{host: host, servers: map[string]bool{}, tools: map[string]bool{}, off: map[string]bool{},
		always: map[string]bool{}, allowed: map[string]bool{}}
	for _, key := range allowed {
		b.allowed[key] = true
	}
	for _, name := range on {
		if strings.Contains(name, ".") {
			b.tools[name] = true
		} else {
			b.servers[name] = true
		}
	}
	return b
}

// Host is the tool host the toolbox's tools run on.
func (b *Toolbox) Host() *mcp.Host { return b.host }

// Key is how a tool is named in config.toml, flags and /tools: SERVER.TOOL.
func Key(t mcp.Tool) string { return t.Server + "." + t.Name }

// Servers returns the configured servers, sorted.
func (b *Toolbox) Servers() []string { return b.host.Servers() }

// On reports whether tool is offered to the model.
func (b *Toolbox) On(t mcp.Tool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tools[Key(t)] || b.servers[t.Server] && !b.off[Key(t)]
}

// ServerOn reports whether any tool of server may be on, which starts it when tools are offered.
func (b *Toolbox) ServerOn(server string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.servers[server] {
		return true
	}
	for k := range b.tools {
		if strings.HasPrefix(k, server+".") {
			return true
		}
	}
	return false
}

// Any reports whether any tool is on.
func (b *Toolbox) Any() bool {
	for _, s := range b.Servers() {
		if b.ServerOn(s) {
			return true
		}
	}
	return false
}

// SetServer turns every tool of server on or off.
func (b *Toolbox) SetServer(server string, on bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.servers[server] = on
	for k := range b.tools {
		if strings.HasPrefix(k, server+".") {
			delete(b.tools, k)
		}
	}
	for k := range b.off {
		if strings.HasPrefix(k, server+".") {
			delete(b.off, k)
		}
	}
}

// SetTool turns one tool on or off.
func (b *Toolbox) SetTool(t mcp.Tool, on bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := Key(t)
	b.tools[k] = on && !b.servers[t.Server]
	b.off[k] = !on && b.servers[t.Server]
}

// Always lets tool run without asking, for the rest of the session.
func (b *Toolbox) Always(t mcp.Tool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.always[Key(t)] = true
}

// Gate asks for every call, except of the tools config.toml allows and those Always let run.
func (b *Toolbox) Gate(t mcp.Tool) (Decision, string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.always[Key(t)] || b.allowed[Key(t)] {
		return Run, ""
	}
	return Ask, ""
}

// Allowed reports whether config.toml lets tool run without asking ([mcp.NAME] allow).
func (b *Toolbox) Allowed(t mcp.Tool) bool {
	return b.allowed[Key(t)]
}

// OfferedSoFar returns the entries Offered would, of the servers already started: what a
// send offers, known without starting one.
func (b *Toolbox) OfferedSoFar() []json.RawMessage {
	var entries []json.RawMessage
	for _, t := range b.host.Listed() {
		if b.On(t) {
			entries = append(entries, t.Entry)
		}
	}
	return entries
}

// Offered lists the servers that have tools on (starting them) and returns the tools on, in
// the order of Servers, with the entries a request offers them by. A server that cannot be
// started or listed is left out, with its error (which names it) in errs: the others are
// offered all the same.
func (b *Toolbox) Offered(ctx context.Context) (tools []mcp.Tool, entries []json.RawMessage, errs []error) {
	for _, server := range b.Servers() {
		if !b.ServerOn(server) {
			continue
		}
		listed, err := b.host.Tools(ctx, server)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, t := range listed {
			if b.On(t) {
				tools = append(tools, t)
				entries = append(entries, t.Entry)
			}
		}
	}
	return tools, entries, errs
}
