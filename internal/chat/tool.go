package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// ToolCall is a call of a tool that the model asked for, as the conversation carries it.
type ToolCall struct {
	// ID is the model's id for the call: its result goes back under it.
	ID string `json:"id"`
	// Function is the name the tool was offered by; Arguments the JSON text the model wrote.
	Function  string `json:"function"`
	Arguments string `json:"arguments"`
}

// ToolStatus is where a tool call is.
type ToolStatus string

// The statuses of a tool call. Only ToolPending changes, once, to one of the others.
const (
	// ToolPending: stored and not yet over; found after parley stopped, it may have run.
	ToolPending ToolStatus = "pending"
	// ToolRan: the tool ran and returned a result (which may be its own error: IsError).
	ToolRan ToolStatus = "ran"
	// ToolRefused: not run, by the operator's choice or because nothing allowed it.
	ToolRefused ToolStatus = "refused"
	// ToolCancelled: the operator stopped the turn before or while it ran; a call in flight
	// was cancelled through MCP.
	ToolCancelled ToolStatus = "cancelled"
	// ToolFailed: it did not complete (its server could not be started, stopped mid-call, or
	// gave no answer in time), or it was not run because its call could not be read.
	ToolFailed ToolStatus = "failed"
)

// ToolMayHaveRun is the result of a call whose end was never stored: parley stopped while it
// ran, so it may have done its work. It goes back to the model as the call's result, and
// the call is never run again.
const ToolMayHaveRun = "parley stopped while this call ran: whether the tool did anything is not known, and it is not run again"

// ToolResult is what became of a tool call: what goes back to the model as the tool's result.
type ToolResult struct {
	Status ToolStatus
	// Server and Tool name the tool that ran (its server in config.toml, its own name).
	Server, Tool string
	// Text is what the model is given; Size the bytes the server returned.
	Text string
	Size int
	// IsError is MCP's isError: the tool ran and failed, and Text says how.
	IsError bool
}

// ResultText is the text a tool message carries back: never empty, which endpoints refuse.
func (r ToolResult) ResultText() string {
	if r.Text == "" {
		return "(no output)"
	}
	return r.Text
}

// maxSummary is the most characters of arguments a one-line summary of a call shows.
const maxSummary = 80

// ToolSummary is call in one line, as the screen's collapsed line, print mode and the
// markdown export show it: its function and its arguments, compacted, cut at maxSummary.
func ToolSummary(call ToolCall) string {
	args := strings.Join(strings.Fields(call.Arguments), " ")
	var compact bytes.Buffer
	if json.Compact(&compact, []byte(call.Arguments)) == nil {
		args = compact.String()
	}
	if r := []rune(args); len(r) > maxSummary {
		args = string(r[:maxSummary-1]) + "…"
	}
	return strings.TrimSpace(call.Function + " " + args)
}

// ToolOutcome says in a few words what became of a call: "ran, 1.2 kB", "error, 40 B",
// "refused", "cancelled", "failed", "may have run".
func ToolOutcome(r ToolResult) string {
	switch {
	case r.Status == ToolRan && r.IsError:
		return "error, " + FormatBytes(r.Size)
	case r.Status == ToolRan:
		return "ran, " + FormatBytes(r.Size)
	case r.Status == ToolPending:
		return "not finished"
	case r.Status == ToolFailed && r.Text == ToolMayHaveRun:
		return "may have run"
	}
	return string(r.Status)
}

// FormatBytes writes a size as the screen shows it: 40 B, 1.2 kB, 3.4 MB.
func FormatBytes(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/1000)) + " kB"
	}
	return trimZero(fmt.Sprintf("%.1f", float64(n)/1e6)) + " MB"
}
