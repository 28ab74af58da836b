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
	// ctrl+c and SIGTERM stop a reply or a wait as cancelled (exit 130), not the process.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], cli.System())
	stop()
	os.Exit(code)
}
