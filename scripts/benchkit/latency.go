package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// The latency commands time, in a tmux pane running parley, how long what the operator does
// takes to reach the screen. They talk to tmux in control mode (one client for the whole
// command, no process per poll, pane output not sent to it), so polling the screen every
// millisecond costs the machine little and the figures are parley's, not the harness's:
//
//	benchkit keys SOCKET PANE N          types a newline and "@@", then N letters one at a time,
//	                                     each once the one before is on screen, a short random
//	                                     pause apart; prints, per letter, the milliseconds from
//	                                     sending it until the input shows it, and 1 if the
//	                                     header said streaming then (else 0)
//	benchkit esc SOCKET PANE MS          presses enter (the prompt is typed already), presses
//	                                     esc MS milliseconds later, and prints the milliseconds
//	                                     until the header says idle, or "ended" if the run
//	                                     had ended before esc
//	benchkit paste SOCKET PANE FILE      pastes FILE (bracketed) and prints the milliseconds
//	                                     until the input shows it: its last line, or its
//	                                     collapsed form "[pasted "
//	benchkit lines SOCKET PANE N WIDTH   types N lines of WIDTH characters as fast as tmux
//	                                     sends them (a newline, ctrl+j, after each) and prints
//	                                     the milliseconds until the last is on screen, and 1 if
//	                                     the cursor is drawn just after it (else 0)
//
// A run that does not reach the screen within a minute fails.

const latencyUsage = "keys SOCKET PANE N | esc SOCKET PANE MS | paste SOCKET PANE FILE | lines SOCKET PANE N WIDTH"

var latencyCommands = map[string]func(args []string) error{
	"keys":  keysCmd,
	"esc":   escCmd,
	"paste": pasteCmd,
	"lines": linesCmd,
}

// letters are the characters keys types; none of them follows "@@" anywhere else on screen.
const letters = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

// timeout is how long anything may take to show.
const timeout = time.Minute

func keysCmd(args []string) error {
	if len(args) != 3 {
		return errors.New("usage: benchkit keys SOCKET PANE N")
	}
	n, err := strconv.Atoi(args[2])
	if err != nil || n < 1 || n > len(letters) {
		return fmt.Errorf("benchkit keys: N must be 1 to %d", len(letters))
	}
	c, err := attach(args[0], args[1])
	if err != nil {
		return err
	}
	defer c.close()
	if err := c.sendKeys("C-j"); err != nil {
		return err
	}
	if err := c.sendKeys("-l", "@@"); err != nil {
		return err
	}
	if _, _, err := c.waitFor(func(s string) bool { return strings.Contains(s, "@@") }); err != nil {
		return err
	}
	for i := range n {
		// A pause of 20–50 ms, so that each letter meets the stream at another point.
		time.Sleep(time.Duration(20+(i*7)%31) * time.Millisecond)
		want := "@@" + letters[:i+1]
		t0 := time.Now()
		if err := c.sendKeys("-l", letters[i:i+1]); err != nil {
			return err
		}
		screen, at, err := c.waitFor(func(s string) bool { return strings.Contains(s, want) })
		if err != nil {
			return err
		}
		streaming := 0
		if strings.Contains(header(screen), " streaming") {
			streaming = 1
		}
		fmt.Printf("%.1f %d\n", ms(at.Sub(t0)), streaming)
	}
	return nil
}

func escCmd(args []string) error {
	if len(args) != 3 {
		return errors.New("usage: benchkit esc SOCKET PANE MS")
	}
	delay, err := strconv.Atoi(args[2])
	if err != nil || delay < 0 {
		return errors.New("benchkit esc: MS must be a number of milliseconds")
	}
	c, err := attach(args[0], args[1])
	if err != nil {
		return err
	}
	defer c.close()
	start := time.Now()
	if err := c.sendKeys("Enter"); err != nil {
		return err
	}
	time.Sleep(time.Until(start.Add(time.Duration(delay) * time.Millisecond)))
	screen, err := c.capture()
	if err != nil {
		return err
	}
	if h := header(screen); !strings.Contains(h, " streaming") && !strings.Contains(h, " waiting") {
		fmt.Println("ended")
		return nil
	}
	t0 := time.Now()
	if err := c.sendKeys("Escape"); err != nil {
		return err
	}
	_, at, err := c.waitFor(func(s string) bool { return strings.Contains(header(s), " idle") })
	if err != nil {
		return err
	}
	fmt.Printf("%.1f\n", ms(at.Sub(t0)))
	return nil
}

func pasteCmd(args []string) error {
	if len(args) != 3 {
		return errors.New("usage: benchkit paste SOCKET PANE FILE")
	}
	text, err := os.ReadFile(args[2])
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimRight(string(text), "\n"), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	c, err := attach(args[0], args[1])
	if err != nil {
		return err
	}
	defer c.close()
	if _, err := c.run("load-buffer -b benchkit " + quote(args[2])); err != nil {
		return err
	}
	t0 := time.Now()
	if _, err := c.run("paste-buffer -p -d -b benchkit -t " + quote(c.pane)); err != nil {
		return err
	}
	_, at, err := c.waitFor(func(s string) bool {
		return strings.Contains(s, "[pasted ") || strings.Contains(s, last)
	})
	if err != nil {
		return err
	}
	fmt.Printf("%.1f\n", ms(at.Sub(t0)))
	return nil
}

func linesCmd(args []string) error {
	if len(args) != 4 {
		return errors.New("usage: benchkit lines SOCKET PANE N WIDTH")
	}
	n, err1 := strconv.Atoi(args[2])
	width, err2 := strconv.Atoi(args[3])
	if err1 != nil || err2 != nil || n < 1 || width < 10 {
		return errors.New("benchkit lines: N must be positive and WIDTH at least 10")
	}
	c, err := attach(args[0], args[1])
	if err != nil {
		return err
	}
	defer c.close()
	line := func(i int) string {
		head := fmt.Sprintf("line%02d ", i+1)
		return head + strings.Repeat(string(rune('a'+i%26)), width-len(head))
	}
	t0 := time.Now()
	for i := range n {
		if err := c.sendKeys("-l", line(i)); err != nil {
			return err
		}
		if i < n-1 {
			if err := c.sendKeys("C-j"); err != nil {
				return err
			}
		}
	}
	last := line(n - 1)
	screen, at, err := c.waitFor(func(s string) bool { return strings.Contains(s, last) })
	if err != nil {
		return err
	}
	// The cursor belongs just after the last line's last character.
	pos, err := c.run("display-message -p -t " + quote(c.pane) + " '#{cursor_x} #{cursor_y}'")
	if err != nil {
		return err
	}
	var x, y int
	fmt.Sscan(pos, &x, &y)
	ok := 0
	rows := strings.Split(screen, "\n")
	if y < len(rows) {
		if col := strings.Index(rows[y], last); col >= 0 && len([]rune(rows[y][:col]))+len(last) == x {
			ok = 1
		}
	}
	fmt.Printf("%.1f %d\n", ms(at.Sub(t0)), ok)
	return nil
}

// header is the first line of a screen: parley's title bar, which ends with the run state.
func header(screen string) string {
	h, _, _ := strings.Cut(screen, "\n")
	return h
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// quote quotes s as one argument of a tmux command.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// ctl is a tmux control-mode client of one server, working on one pane.
type ctl struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	pane string
}

// attach starts a control-mode client of the tmux server on socket, attached to pane's
// session, with the pane's output not sent to it.
func attach(socket, pane string) (*ctl, error) {
	cmd := exec.Command("tmux", "-L", socket, "-C", "attach", "-t", pane)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &ctl{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16), pane: pane}
	// tmux answers the attach itself first.
	if _, err := c.answer("attach"); err != nil {
		c.close()
		return nil, err
	}
	if _, err := c.run("refresh-client -f no-output"); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

func (c *ctl) close() {
	c.in.Close()
	c.cmd.Wait()
}

// run sends one command and returns its output. Notifications before the answer are skipped;
// tmux never sends one inside an answer.
func (c *ctl) run(command string) (string, error) {
	if _, err := io.WriteString(c.in, command+"\n"); err != nil {
		return "", err
	}
	return c.answer(command)
}

// answer reads the answer to command.
func (c *ctl) answer(command string) (string, error) {
	var body []string
	in := false
	for {
		line, err := c.out.ReadString('\n')
		if err != nil {
			return "", fmt.Errorf("tmux %s: %w", command, err)
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case !in && strings.HasPrefix(line, "%begin"):
			in = true
		case in && strings.HasPrefix(line, "%end"):
			return strings.Join(body, "\n"), nil
		case in && strings.HasPrefix(line, "%error"):
			return "", fmt.Errorf("tmux %s: %s", command, strings.Join(body, "; "))
		case in:
			body = append(body, line)
		}
	}
}

func (c *ctl) sendKeys(args ...string) error {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = quote(a)
	}
	_, err := c.run("send-keys -t " + quote(c.pane) + " " + strings.Join(q, " "))
	return err
}

func (c *ctl) capture() (string, error) {
	return c.run("capture-pane -p -t " + quote(c.pane))
}

// waitFor polls the screen every millisecond until ok holds, and returns the screen and when
// it was captured.
func (c *ctl) waitFor(ok func(screen string) bool) (string, time.Time, error) {
	end := time.Now().Add(timeout)
	for {
		s, err := c.capture()
		at := time.Now()
		if err != nil {
			return "", at, err
		}
		if ok(s) {
			return s, at, nil
		}
		if at.After(end) {
			return "", at, fmt.Errorf("timed out; the screen:\n%s", s)
		}
		time.Sleep(time.Millisecond)
	}
}
