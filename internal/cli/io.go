package cli

import (
	"bytes"
	"io"
	"net"
	"os"

	"github.com/charmbracelet/x/term"

	"parley/internal/chat"
	"parley/internal/sanitize"
)

// IO is what one run of parley is given of the process it runs in: the standard streams and
// whether each is a terminal, the environment, and the clock its waits are timed by. Nothing
// below main reads the process's own, so a test runs parley in-process with an IO of its own.
type IO struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// InTerminal, OutTerminal and ErrTerminal say whether In, Out and ErrOut are terminals:
	// stdin that is not one holds a prompt or text to attach; Run neutralises stdout when it
	// is one (neutral).
	InTerminal, OutTerminal, ErrTerminal bool
	// OutColumns is Out's width when it is a terminal that says it; 0 otherwise.
	OutColumns int
	// Getenv reads an environment variable, "" when it is unset.
	Getenv func(string) string
	// Resolver looks endpoints' host names up; nil is the system's.
	Resolver *net.Resolver
	// Clock times Tier 1's waits, --wait, the spend limits' day and what history stores.
	Clock chat.Clock
}

// neutral returns ios with its output behind the one neutraliser (sanitize.Writer): stdout
// when it is a terminal, stderr always, since its lines say what a server sent and what the
// operator typed. Every command writes through it without a thought; raw bytes go only to a
// stdout that is not a terminal, where a script reads the reply as the model wrote it, and
// the chat screen and print mode draw their own sequences through sanitize.Raw.
func (ios *IO) neutral() *IO {
	n := *ios
	if n.OutTerminal {
		n.Out = sanitize.NewWriter(n.Out)
	}
	n.ErrOut = sanitize.NewWriter(n.ErrOut)
	return &n
}

// System returns the IO of the process: os.Stdin, os.Stdout and os.Stderr, the process's
// environment and the real clock.
func System() *IO {
	cols := 0
	if w, _, err := term.GetSize(os.Stdout.Fd()); err == nil {
		cols = w
	}
	return &IO{
		OutColumns: cols,
		In:         os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		InTerminal:  term.IsTerminal(os.Stdin.Fd()),
		OutTerminal: term.IsTerminal(os.Stdout.Fd()),
		ErrTerminal: term.IsTerminal(os.Stderr.Fd()),
		Getenv:      os.Getenv,
		Clock:       chat.SystemClock{},
	}
}

// Test returns an IO for running parley in a test: stdin reads in, stdout and stderr are
// written to out and errOut, no stream is a terminal and the environment is empty until the
// test sets the fields, and the clock is the real one.
func Test() (ios *IO, in, out, errOut *bytes.Buffer) {
	in, out, errOut = new(bytes.Buffer), new(bytes.Buffer), new(bytes.Buffer)
	return &IO{In: in, Out: out, ErrOut: errOut, Getenv: func(string) string { return "" }, Clock: chat.SystemClock{}}, in, out, errOut
}
