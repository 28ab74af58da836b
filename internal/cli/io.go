package cli

import (
	"bytes"
	"io"
	"os"

	"github.com/charmbracelet/x/term"

	"parley/internal/chat"
)

// IO is what one run of parley is given of the process it runs in: the standard streams and
// whether each is a terminal, the environment, and the clock its waits are timed by. Nothing
// below main reads the process's own, so a test runs parley in-process with an IO of its own.
type IO struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// InTerminal, OutTerminal and ErrTerminal say whether In, Out and ErrOut are terminals:
	// stdin that is not one holds a prompt or text to attach, output to one is neutralised.
	InTerminal, OutTerminal, ErrTerminal bool
	// OutColumns is Out's width when it is a terminal that says it; 0 otherwise.
	OutColumns int
	// Getenv reads an environment variable, "" when it is unset.
	Getenv func(string) string
	// Clock times Tier 1's waits, --wait, the spend limits' day and what history stores.
	Clock chat.Clock
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
