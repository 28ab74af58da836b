// Package cli is parley's command line: its flags, the wiring of configuration, history and
// endpoints, and the subcommands, each in a file of its own. Run is all of parley below main;
// it reads and writes only the IO it is given, so every command runs in-process in a test.
package cli

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"parley/internal/chat"
)

// usageError is a mistake in how parley was invoked or configured: exit 2, one line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// Signalled is why parley's context ends when a signal stops it: the exit status then says
// which (128 plus its number: 130 for ctrl+c, 143 for kill, 129 for a closed terminal).
type Signalled struct{ Signal syscall.Signal }

func (s Signalled) Error() string { return "stopped by " + s.Signal.String() }

// Run runs parley with args (without the program's name) on ios until it is done, and returns
// the exit status. Cancelling ctx is ctrl+c: a reply being written is stopped, and stored as
// cancelled; a command that is waiting (for stdin, for an endpoint) stops at once. When ctx
// ends with a Signalled cause, an interrupted exit says which signal it was.
func Run(ctx context.Context, args []string, ios *IO) int {
	code, err := dispatch(ctx, args, ios)
	if err != nil && ctx.Err() != nil {
		// Stopped by ctrl+c: that is all there is to say.
		return interrupted(ctx)
	}
	if code == chat.ExitInterrupted {
		code = interrupted(ctx)
	}
	if err != nil {
		fmt.Fprintf(ios.ErrOut, "parley: %v\n", err)
		var ue usageError
		if errors.As(err, &ue) || code == chat.ExitOK {
			code = chat.ExitUsage
		}
	}
	return code
}

// interrupted is the exit status of a run that ctx's end stopped.
func interrupted(ctx context.Context) int {
	var s Signalled
	if errors.As(context.Cause(ctx), &s) {
		return 128 + int(s.Signal)
	}
	return chat.ExitInterrupted
}

// command is a subcommand: it runs with its args and returns the exit status, and an error
// to say on stderr.
type command func(ctx context.Context, args []string, ios *IO) (int, error)

// subcommands are parley's commands besides print mode and the chat screen, by name.
var subcommands = map[string]command{
	"sessions":    listSessions,
	"export":      exportSession,
	"demo-server": serveDemo,
	"classify":    classifyFailure,
	"search":      search,
	"roles":       listRoles,
	"version":     printVersion,
}

// dispatch runs a subcommand, or else print mode or the chat screen.
func dispatch(ctx context.Context, args []string, ios *IO) (int, error) {
	if len(args) > 0 {
		if sub, ok := subcommands[args[0]]; ok {
			return sub(ctx, args[1:], ios)
		}
	}
	return converse(ctx, args, ios)
}
