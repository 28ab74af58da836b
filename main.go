// Command parley is a terminal chat client for OpenAI-compatible LLM endpoints that fails
// honestly: it recovers by itself where that is safe, shows a visible, cancellable wait where
// it is not, never retries what cannot succeed, and never loses a word.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	tea "charm.land/bubbletea/v2"

	"parley/agent/chat"
	"parley/history"
	"parley/tui"
)

// Exit statuses, as the interface contract gives them.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitRetryable   = 3
	exitInterrupted = 130
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// usageError is a mistake in how parley was invoked or configured: exit 2, one line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

func run(args []string, stdin *os.File, stdout, stderr *os.File, getenv func(string) string) int {
	code, err := dispatch(args, stdin, stdout, stderr, getenv)
	if err != nil {
		fmt.Fprintf(stderr, "parley: %v\n", err)
		var ue usageError
		if errors.As(err, &ue) || code == exitOK {
			code = exitUsage
		}
	}
	return code
}

// dispatch runs a subcommand, print mode or the chat screen, and returns the exit status.
func dispatch(args []string, stdin *os.File, stdout, stderr *os.File, getenv func(string) string) (int, error) {
	if len(args) > 0 {
		switch args[0] {
		case "sessions":
			return listSessions(args[1:], stdout, getenv)
		case "export":
			return exportSession(args[1:], stdout, getenv)
		case "demo-server":
			return serveDemo(args[1:], stdout)
		}
	}
	o, err := parseFlags(args, stdin)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(stdout)
		return exitOK, nil
	}
	if err != nil {
		return exitUsage, err
	}
	a, err := openApp(o.Flags, getenv)
	if err != nil {
		return exitUsage, err
	}
	defer a.close()
	sess, err := a.session(o.cont, o.sessionID)
	if err != nil {
		return exitUsage, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.printMode {
		return printReply(ctx, a, sess, o.prompt, o.print, stdout, stderr), nil
	}
	if addr := getenv("PARLEY_PPROF"); addr != "" {
		if err := servePprof(addr); err != nil {
			return exitUsage, err
		}
	}
	return chatScreen(ctx, a, sess)
}

// chatScreen runs the chat screen on sess until the operator quits.
func chatScreen(ctx context.Context, a *app, sess history.Session) (int, error) {
	m := tui.New(tui.Options{DB: a.db, Client: a.client, Session: sess, Demo: a.demo, Clock: chat.SystemClock{}, Budget: a.budget})
	if _, err := tea.NewProgram(m, tea.WithContext(ctx)).Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return exitFailed, err
	}
	return exitOK, nil
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, `parley: a terminal chat client for OpenAI-compatible endpoints

usage:
  parley [flags]                  open the chat screen (a new session)
  parley -p PROMPT [flags]        print mode: stream one reply to stdout
  echo PROMPT | parley [flags]    print mode, prompt from stdin
  parley sessions [--json]        list sessions
  parley export ID [--json|--markdown]

flags:
`)
	fs := flagSet(new(options))
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprint(w, `
exit status: 0 succeeded, 1 failed (not retryable), 2 usage or configuration error,
3 failed (retryable), 130 interrupted
`)
}

// writeJSON is every JSON output of parley: indented, with <, > and & left as they are.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
