package mcp

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is one tool of a server, as the model is offered it.
type Tool struct {
	// Server and Name are the tool's identity: the server's name in config.toml and the tool's
	// own name there. What is remembered of a tool (enabled, always allowed, its calls in the
	// history) is keyed by them, never by Function.
	Server, Name string
	// Description is the server's account of the tool; InputSchema the JSON Schema of its
	// arguments, as the server gave it.
	Description string
	InputSchema json.RawMessage
	// Function is the name the model is offered the tool by and calls it by. OpenAI takes
	// ^[a-zA-Z0-9_-]{1,64}$, so a name is made safe by turning every other character into _
	// and cutting it at 64. Function is the tool's own name so made, unless a tool listed
	// before has it; then SERVER_TOOL, made the same way; then SERVER_TOOL_2, _3…. A name
	// given is kept while the Host lives, so a server listed later never renames the tools
	// of one listed before; list servers in the order of Servers to name them alike each run.
	Function string
	// Entry is the tool's entry in a request's OpenAI `tools`, as JSON:
	// {"type":"function","function":{"name":…,"description":…,"parameters":…}}. What it costs
	// in tokens, in every request that offers the tool, is the caller's estimate of this text.
	Entry json.RawMessage
}

// maxFunction is the longest function name OpenAI takes.
const maxFunction = 64

// function returns the function name of the tool key names, giving it one the first time.
// h.mu must be held.
func (h *Host) function(key toolKey) string {
	if name, ok := h.names[key]; ok {
		return name
	}
	taken := func(name string) bool {
		for _, n := range h.names {
			if n == name {
				return true
			}
		}
		return false
	}
	name := safeFunction(key.tool, "")
	prefixed := key.server + "_" + key.tool
	for n := 1; taken(name); n++ {
		suffix := ""
		if n > 1 {
			suffix = "_" + strconv.Itoa(n)
		}
		name = safeFunction(prefixed, suffix)
	}
	h.names[key] = name
	return name
}

// safeFunction makes name+suffix a function name OpenAI takes, cutting name to leave room
// for suffix.
func safeFunction(name, suffix string) string {
	var b strings.Builder
	for _, r := range name {
		if b.Len() == maxFunction-len(suffix) {
			break
		}
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		b.WriteByte('_')
	}
	return b.String() + suffix
}

// emptySchema is the schema of a tool that takes no arguments, for a server that gives none:
// OpenAI wants an object schema.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// newTool is the listed tool t of server, offered as function.
func newTool(server, function string, t *sdk.Tool) (Tool, error) {
	schema := emptySchema
	if t.InputSchema != nil {
		b, err := json.Marshal(t.InputSchema)
		if err != nil {
			return Tool{}, fmt.Errorf("its input schema cannot be sent: %v", err)
		}
		schema = b
	}
	type fn struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	entry, err := json.Marshal(struct {
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}{"function", fn{function, t.Description, schema}})
	if err != nil {
		return Tool{}, err
	}
	return Tool{Server: server, Name: t.Name, Description: t.Description, InputSchema: schema,
		Function: function, Entry: entry}, nil
}

// Result is what a tool call returned.
type Result struct {
	// Text is the result as the model is given it: the text of its content, parts joined by
	// newlines, with a note in the place of each part that is not text, like
	// [image image/png, 1234 bytes, not passed on].
	Text string
	// Size is how many bytes of content the server returned: text, and binary data decoded.
	Size int
	// IsError is MCP's isError: the tool ran and failed, and Text says how. It is a result
	// like any other, for the model to read.
	IsError bool
}

// newResult reads a tool call's result.
func newResult(r *sdk.CallToolResult) Result {
	var parts []string
	size := 0
	binary := func(kind, mime string, data []byte) {
		parts = append(parts, fmt.Sprintf("[%s %s, %d bytes, not passed on]", kind, mime, len(data)))
		size += len(data)
	}
	for _, c := range r.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
			size += len(c.Text)
		case *sdk.ImageContent:
			binary("image", c.MIMEType, c.Data)
		case *sdk.AudioContent:
			binary("audio", c.MIMEType, c.Data)
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link %s: %s]", c.Name, c.URI))
		case *sdk.EmbeddedResource:
			switch res := c.Resource; {
			case res == nil:
			case res.Blob != nil:
				binary("resource "+res.URI, res.MIMEType, res.Blob)
			default:
				parts = append(parts, res.Text)
				size += len(res.Text)
			}
		default:
			parts = append(parts, fmt.Sprintf("[%T content, not passed on]", c))
		}
	}
	return Result{Text: strings.Join(parts, "\n"), Size: size, IsError: r.IsError}
}
