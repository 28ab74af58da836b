// Package clipboard puts text on the operator's clipboard: through the system's clipboard tool
// when one serves the session parley runs in (wl-copy, xclip, xsel, pbcopy), and as an OSC 52
// sequence for the terminal when none does or the session is remote (SSH), where a local tool
// would fill the wrong machine's clipboard.
package clipboard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// Timeout is how long a clipboard tool may take: one that hangs (a display that went away)
// must not leave a copy waiting.
const Timeout = 2 * time.Second

// Way is how text is copied: with a tool, as OSC 52, or both.
type Way struct {
	// Tool is the clipboard tool's command line, nil when none serves the session.
	Tool []string
	// OSC52 is set when the text is also (or only) sent to the terminal as OSC 52.
	OSC52 bool
}

// tools are the clipboard tools in the order they are tried, each with the variable of the
// session it serves ("" for any) and its command line.
var tools = []struct {
	session string
	args    []string
}{
	{"WAYLAND_DISPLAY", []string{"wl-copy"}},
	{"DISPLAY", []string{"xclip", "-selection", "clipboard"}},
	{"DISPLAY", []string{"xsel", "--clipboard", "--input"}},
	{"", []string{"pbcopy"}},
}

// Choose returns the way to copy in the environment getenv reads, with the tools lookPath
// finds: the first tool whose session is there (Wayland, then X; pbcopy on macOS), and OSC 52
// when there is none or the session came in over SSH.
func Choose(getenv func(string) string, lookPath func(string) (string, error)) Way {
	var w Way
	for _, t := range tools {
		if t.session == "" && runtime.GOOS != "darwin" {
			continue
		}
		if t.session != "" && getenv(t.session) == "" {
			continue
		}
		if _, err := lookPath(t.args[0]); err == nil {
			w.Tool = t.args
			break
		}
	}
	w.OSC52 = w.Tool == nil || getenv("SSH_TTY") != "" || getenv("SSH_CONNECTION") != ""
	return w
}

// Name is what a notice calls the tool: "xclip".
func (w Way) Name() string {
	if w.Tool == nil {
		return ""
	}
	return w.Tool[0]
}

// Run gives text to the tool and waits for it, at most Timeout. The tool may leave a process
// behind to serve the selection (xclip and wl-copy do): its output is not waited for.
func (w Way) Run(ctx context.Context, text string) error {
	if w.Tool == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.Tool[0], w.Tool[1:]...)
	cmd.Stdin = strings.NewReader(text)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 100 * time.Millisecond
	err := cmd.Run()
	if errors.Is(err, exec.ErrWaitDelay) {
		return nil // it exited well; what it left behind holds its stderr
	}
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return fmt.Errorf("%s: %s", w.Tool[0], firstLine(msg))
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s did not finish within %s", w.Tool[0], Timeout)
		}
		return fmt.Errorf("%s: %v", w.Tool[0], err)
	}
	return nil
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
