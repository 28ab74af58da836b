package markdowntest

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"parley/agent"
	"parley/internal/chat"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
	"parley/retry"
)

// DemoReply returns the n chunks of the demo endpoint's generated markdown reply (paragraphs,
// lists, fenced code), read through parley's own client from a demo server on 127.0.0.1, as a
// run receives them; with openCode the reply opens a code block early and runs on inside it.
func DemoReply(tb testing.TB, n int, openCode bool) []string {
	tb.Helper()
	srv := demotest.Start(tb, demo.Options{Tokens: n, OpenCode: openCode})
	ep := agent.Endpoint{Name: "demo", BaseURL: srv.URL(), Model: demo.DefaultModel, Demo: true}
	client := agent.NewClient(ep, chat.SystemClock{}, retry.DefaultPolicy())
	toks := make([]string, 0, n)
	for ev := range client.Stream(context.Background(), []chat.Message{{Role: "user", Content: "go"}}) {
		switch ev.Kind {
		case chat.EventDelta:
			toks = append(toks, ev.Text)
		case chat.EventFailed, chat.EventCancelled:
			tb.Fatalf("generated reply: %+v", ev)
		}
	}
	if len(toks) != n {
		tb.Fatalf("%d chunks, want %d", len(toks), n)
	}
	return toks
}

// TrimBlank drops leading and trailing lines that show nothing.
func TrimBlank(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
