// Package cli is parley's command line: its flags, the wiring of configuration, history and
// endpoints, and the subcommands, each in a file of its own. Run is all of parley below main;
// it reads and writes only the IO it is given, so every command runs in-process in a test.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
	"syscall"

	"parley/internal/chat"
	"parley/internal/printmode"
	"parley/internal/sanitize"
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
	ios = ios.neutral()
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
		if asksForJSON(args) {
			// A script that asked for JSON reads one object, whatever went wrong.
			printmode.WriteFailed(ios.Out, "", sanitize.String(err.Error()), nil)
		}
	}
	return code
}

// asksForJSON reports whether args ask print mode (no subcommand) for its --json object.
func asksForJSON(args []string) bool {
	_, word, _, prompted := splitCommand(args)
	if _, sub := subcommands[word]; sub && !prompted {
		return false
	}
	if i := slices.Index(args, "--"); i >= 0 {
		args = args[:i]
	}
	return slices.ContainsFunc(args, func(a string) bool {
		return a == "--json" || a == "-json" || a == "--json=true" || a == "-json=true"
	})
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

// subcommand is one of parley's commands besides print mode and the chat screen.
type subcommand struct {
	run command
	// shared are the flags it has that parley has too: given before its name
	// (parley --json sessions), they are its own.
	shared []string
}

// subcommands are parley's commands besides print mode and the chat screen, by name.
var subcommands = map[string]subcommand{
	"sessions":    {listSessions, []string{"json"}},
	"export":      {exportSession, []string{"json"}},
	"fork":        {forkSession, []string{"json"}},
	"demo-server": {run: serveDemo},
	"classify":    {classifyFailure, []string{"json"}},
	"search":      {search, []string{"json"}},
	"roles":       {listRoles, []string{"json"}},
	"version":     {run: printVersion},
	"help":        {run: printHelp},
}

// dispatch runs a subcommand, or else print mode or the chat screen. A subcommand's name may
// follow parley's own flags; a word a few letters from one is taken for a mistyped command,
// and sent nowhere.
func dispatch(ctx context.Context, args []string, ios *IO) (int, error) {
	flags, name, rest, prompted := splitCommand(args)
	sub, ok := subcommands[name]
	switch {
	case name == "help" && (len(rest) > 1 || len(rest) == 1 && !isCommand(rest[0])):
		// A question that begins with the word: parley help me write a haiku.
	case ok:
		own, err := sub.adopt(name, flags)
		if err != nil {
			return chat.ExitUsage, err
		}
		return sub.run(ctx, append(own, rest...), ios)
	}
	if near, typo := chat.Nearest(name, slices.Sorted(maps.Keys(subcommands))); typo && !ok && !prompted {
		prompt := strings.Join(append([]string{name}, rest...), " ")
		return chat.ExitUsage, usagef("unknown command %q — did you mean %s? (parley -p %s sends it as a prompt)", name, near, shellQuote(prompt))
	}
	return converse(ctx, args, ios)
}

// splitCommand splits args into parley's flags before the first word, the word (empty when
// there is none, or -- stands before it), and what follows it; prompted says -p is among the
// flags, so the words are no command. An unknown flag ends the flags: converse says what is
// wrong with it.
func splitCommand(args []string) (flags []string, word string, rest []string, prompted bool) {
	fs := flagSet(new(options))
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return args[:i], "", nil, prompted
		case a == "-" || !strings.HasPrefix(a, "-"):
			return args[:i], a, args[i+1:], prompted
		}
		name, _, valued := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.Lookup(name)
		if f == nil {
			return args, "", nil, prompted
		}
		prompted = prompted || name == "p"
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !valued && (!ok || !b.IsBoolFlag()) {
			i++ // the flag's value
		}
	}
	return args, "", nil, prompted
}

// adopt returns parley's flags given before the subcommand name as the subcommand's own, and
// refuses, with a usage error naming it, one the subcommand has no use for.
func (sub subcommand) adopt(name string, flags []string) ([]string, error) {
	fs := flagSet(new(options))
	if err := fs.Parse(flags); err != nil {
		return nil, flagError(err)
	}
	var own []string
	var refused error
	fs.Visit(func(f *flag.Flag) {
		switch {
		case slices.Contains(sub.shared, f.Name):
			own = append(own, "--"+f.Name+"="+f.Value.String())
		case refused == nil:
			refused = usagef("%s is not an option of parley %s: leave it out (parley help lists each command's)", dashed(f.Name), name)
		}
	})
	return own, refused
}

// dashed is a flag's name as parley -h writes it: -c and -p, --profile.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// isCommand reports whether word is the name of a subcommand.
func isCommand(word string) bool {
	_, ok := subcommands[word]
	return ok
}

// shellQuote quotes s for a POSIX shell, in double quotes when nothing in it is special there.
func shellQuote(s string) string {
	if !strings.ContainsAny(s, "\"$`!\\'") {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
