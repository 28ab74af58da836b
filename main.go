// Command parley is a terminal chat client for OpenAI-compatible LLM endpoints that fails
// honestly: it recovers by itself where that is safe, shows a visible, cancellable wait where
// it is not, never retries what cannot succeed, and never loses a word.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"parley/internal/cli"
)

func main() {
	// ctrl+c, kill and a closed terminal stop a reply or a wait as cancelled, stored, and exit
	// with the signal's status (130, 143, 129), rather than killing the process. A closed
	// stdout (| head) is an error print mode sees on its next write, not a signal that kills.
	signal.Ignore(syscall.SIGPIPE)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	ctx, stop := context.WithCancelCause(context.Background())
	go func() { stop(cli.Signalled{Signal: (<-sigs).(syscall.Signal)}) }()
	os.Exit(cli.Run(ctx, os.Args[1:], cli.System()))
}
