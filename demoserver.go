package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"parley/agent/demo"
)

// serveDemo runs the demo endpoint as a process of its own, for tests and benchmarks that
// drive the built binary: `parley demo-server --addr 127.0.0.1:0` prints its base URL.
func serveDemo(args []string, stdout io.Writer) (int, error) {
	fs := flag.NewFlagSet("demo-server", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("addr", "127.0.0.1:0", "")
	pace := fs.Duration("pace", demo.DefaultPace, "")
	tokens := fs.Int("tokens", 0, "")
	if _, err := parseInterspersed(fs, args); err != nil {
		return exitUsage, usagef("usage: parley demo-server [--addr 127.0.0.1:PORT] [--pace 25ms] [--tokens N]")
	}
	srv, err := demo.Start(demo.Options{Addr: *addr, Pace: *pace, Tokens: *tokens})
	if err != nil {
		return exitFailed, err
	}
	defer srv.Close()
	fmt.Fprintln(stdout, srv.URL())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	return exitOK, nil
}
