package cli

import (
	"context"
	"fmt"

	"parley/internal/chat"

	"parley/internal/demo"
)

// serveDemo runs the demo endpoint as a process of its own, for tests and benchmarks that
// drive the built binary, until ctx ends: `parley demo-server --addr 127.0.0.1:0` prints its
// base URL.
// --tokens N makes every reply N chunks of generated markdown, and --open-code makes that
// reply open a code block early and run on inside it to the end.
func serveDemo(ctx context.Context, args []string, ios *IO) (int, error) {
	fs := quietFlags("demo-server")
	addr := fs.String("addr", "127.0.0.1:0", "")
	pace := fs.Duration("pace", demo.DefaultPace, "")
	tokens := fs.Int("tokens", 0, "")
	openCode := fs.Bool("open-code", false, "")
	if _, err := parseInterspersed(fs, args); err != nil {
		return chat.ExitUsage, usagef("usage: parley demo-server [--addr 127.0.0.1:PORT] [--pace 25ms] [--tokens N [--open-code]]")
	}
	srv, err := demo.Start(demo.Options{Addr: *addr, Pace: *pace, Tokens: *tokens, OpenCode: *openCode})
	if err != nil {
		return chat.ExitFailed, err
	}
	defer srv.Close()
	fmt.Fprintln(ios.Out, srv.URL())
	<-ctx.Done() // ctrl+c or SIGTERM, as main's context says
	return chat.ExitOK, nil
}
