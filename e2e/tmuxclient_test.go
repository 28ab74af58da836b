package e2e

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"parley/internal/demo"
)

// controlClient is a tmux control-mode client (tmux -C) of one pane's server, attached to a
// session of its own. A wait for the screen asks for it every 50 ms: over this one connection
// a capture costs the server a parse, where a tmux process for each costs a fork, an exec and
// a connection, about 11 ms of CPU, and an e2e run makes some 1,700 of them.
type controlClient struct {
	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// controlSession is the control client's own session; its size and its windows change
// nothing in the session under test.
const controlSession = "control"

// startControl attaches a control client to the server on socket, in a session of its own,
// and detaches it when t ends.
func startControl(t *testing.T, socket string) (*controlClient, error) {
	cmd := exec.Command("tmux", "-L", socket, "-C", "new-session", "-s", controlSession, "-x", "80", "-y", "24", "sleep 86400")
	in, inErr := cmd.StdinPipe()
	out, outErr := cmd.StdoutPipe()
	if err := errors.Join(inErr, outErr); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &controlClient{cmd: cmd, in: in, out: bufio.NewReader(out)}
	t.Cleanup(func() {
		in.Close() // a control client detaches when its input ends
		cmd.Wait()
	})
	return c, nil
}

// errControlGone is a control client's connection ending: its server has gone.
var errControlGone = errors.New("the control client's connection ended")

// run sends one tmux command and returns what it printed, as a tmux process prints it; a
// command tmux refuses returns tmux's words as the error.
func (c *controlClient) run(args []string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = quoteTmux(a)
	}
	if _, err := io.WriteString(c.in, strings.Join(quoted, " ")+"\n"); err != nil {
		return "", errControlGone
	}
	// Output comes as a block, "%begin T N F" to "%end T N F" or "%error T N F"; flags 1 mark
	// a command of this client's, and everything outside a block is a notification.
	var end, failed string
	var out strings.Builder
	for {
		line, err := c.out.ReadString('\n')
		if err != nil {
			return "", errControlGone
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case end == "":
			if rest, ok := strings.CutPrefix(line, "%begin "); ok && strings.HasSuffix(rest, " 1") {
				end, failed = "%end "+rest, "%error "+rest
			}
		case line == end:
			return out.String(), nil
		case line == failed:
			return "", errors.New(out.String())
		default:
			out.WriteString(line + "\n")
		}
	}
}

// quoteTmux writes s as one word of tmux's command language, in double quotes: a backslash,
// a quote and a $ escaped, and every byte that is not printable ASCII in octal (tmux's reader
// takes a raw 0xff for the end of its input), so the word tmux reads is s byte for byte.
func quoteTmux(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '\\' || ch == '"' || ch == '$':
			b.WriteByte('\\')
			b.WriteByte(ch)
		case ch < 0x20 || ch >= 0x7f:
			fmt.Fprintf(&b, "\\%03o", ch)
		default:
			b.WriteByte(ch)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// overControl says whether a tmux command goes through the control client: the commands a
// wait repeats, when they name their target, since a command without one would act on the
// control client's own session.
func overControl(args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "capture-pane", "send-keys", "display-message":
		for _, a := range args[1:] {
			if a == "-t" {
				return true
			}
		}
	}
	return false
}

// TestControlClientSendsEveryByteAsItIs sets a buffer over the control client to every byte
// a word can hold, and reads it back through a tmux process.
func TestControlClientSendsEveryByteAsItIs(t *testing.T) {
	t.Parallel()
	p := newPane(t, "m", demo.Options{})
	p.newSession("-d", "-s", "parley", "-x", "40", "-y", "5", "echo one two; sleep 60")
	var word strings.Builder
	for b := 1; b < 256; b++ {
		word.WriteByte(byte(b))
	}
	word.WriteString(` ~x ;d {e} #f 'g' é $HOME #{pane_pid} \n`)
	c, err := startControl(t, p.socket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.run([]string{"set-buffer", "-b", "every", word.String()}); err != nil {
		t.Fatal(err)
	}
	if got, err := exec.Command("tmux", "-L", p.socket, "show-buffer", "-b", "every").Output(); err != nil || string(got) != word.String() {
		t.Fatalf("show-buffer: %v\ngot  %q\nwant %q", err, got, word.String())
	}
	if _, err := c.run([]string{"send-keys", "-t", "nosuch", "x"}); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Fatalf("a refused command returned %v, not tmux's words", err)
	}
	// Both captures read the screen once echo has written to it: before, they may straddle it.
	p.waitScreen("one two")
	screen, err := c.run([]string{"capture-pane", "-p", "-t", "parley"})
	if want, _ := exec.Command("tmux", "-L", p.socket, "capture-pane", "-p", "-t", "parley").Output(); err != nil || screen != string(want) {
		t.Fatalf("capture-pane over the control client: %v\n%q\nby a process:\n%q", err, screen, want)
	}
}
