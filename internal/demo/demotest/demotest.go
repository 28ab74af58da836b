// Package demotest starts parley's demo endpoint for a test: the request-counting fake that
// every test server in parley is.
package demotest

import (
	"strings"
	"testing"

	"parley/internal/demo"
)

// Start starts a demo endpoint on 127.0.0.1 with opts, queues faults for its first requests,
// and closes it when the test ends.
func Start(t testing.TB, opts demo.Options, faults ...demo.Fault) *demo.Server {
	t.Helper()
	srv, err := demo.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	srv.Push(faults...)
	return srv
}

// HostileStream is a reply whose text carries a clipboard write, title changes (one cut across
// two deltas) and colours: what must reach a pipe unchanged and a terminal neutralised.
const HostileStream = `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}` + "\n\n" +
	`data: {"choices":[{"index":0,"delta":{"content":"safe \u001b]52;c;cm0gLXJmIH4=\u0007text \u001b]0;pwned\u0007and \u001b[31mred\u001b[0m"}}]}` + "\n\n" +
	`data: {"choices":[{"index":0,"delta":{"content":" then \u001b]0;pw"}}]}` + "\n\n" +
	`data: {"choices":[{"index":0,"delta":{"content":"ned-again\u0007done"}}]}` + "\n\n" +
	`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
	"data: [DONE]\n\n"

// CheckNeutralised checks out, what a terminal was given of HostileStream's reply, and
// visible, the text the terminal shows of it (out without its styles, where it is rendered):
// the text is all there, and none of the stream's control sequences is.
func CheckNeutralised(t testing.TB, out, visible string) {
	t.Helper()
	if !strings.Contains(visible, "safe ") || !strings.Contains(visible, "red") {
		t.Fatalf("the visible text is missing: %q", out)
	}
	if strings.Contains(visible, "ned-again") || !strings.Contains(visible, "then done") {
		t.Errorf("a sequence split across deltas leaked its text: %q", out)
	}
	for _, seq := range []string{"\x1b]52", "\x1b]0;", "\x1b[31m"} {
		if strings.Contains(out, seq) {
			t.Errorf("terminal output carries %q: %q", seq, out)
		}
	}
}

// ToolResults are the tool messages of a request, in its order.
func ToolResults(req demo.Request) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == "tool" {
			out = append(out, m.Content)
		}
	}
	return out
}
