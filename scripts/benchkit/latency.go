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
//	benchkit keys SOCKET PANE N [FLAGS]  types N letters into the input one at a time, each once
//	                                     the one before is on screen, a short random pause
//	                                     apart; prints, per letter, the milliseconds from
//	                                     sending it until the input shows it, and 1 if the
//	                                     header said streaming then (else 0). With --after, the
//	                                     letters go on a new line after the input's text (a
//	                                     newline and "@@" are typed first, untimed); with
//	                                     --stream, it stops at the first letter that shows on
//	                                     an idle screen
//	benchkit esc SOCKET PANE MS          presses enter (the prompt is typed already), presses
//	                                     esc MS milliseconds later, and prints the milliseconds
//	                                     until the header says idle, or "ended" if the run
//	                                     had ended before esc
//	benchkit escidle SOCKET PANE N       presses esc N times on an idle screen, each moving the
//	                                     focus between the input and the transcript, and prints
//	                                     the milliseconds until the help line shows it: the
//	                                     idle baseline of esc, which the terminal reader holds
//	                                     back 50 ms to tell it from the start of a sequence
//	benchkit paste SOCKET PANE FILE      pastes FILE (bracketed) and prints the milliseconds
//	                                     until the input shows it: its last line, or its
//	                                     collapsed form "[pasted "
//	benchkit lines SOCKET PANE N WIDTH   types N lines of WIDTH characters as fast as tmux
//	                                     sends them (a newline, ctrl+j, after each) and prints
//	                                     the milliseconds until the last is on screen, and 1 if
//	                                     the cursor is drawn just after it (else 0)
//
// A run that does not reach the screen within a minute fails.

// latencyCommand is one latency command: its arguments after SOCKET PANE, for its usage,
// and what it does with them and a control client of the pane.
type latencyCommand struct {
	args string
	run  func(c *ctl, args []string) error
}

var latencyCommands = map[string]latencyCommand{
	"keys":    {"N [--after] [--stream]", keysCmd},
	"esc":     {"MS", escCmd},
	"escidle": {"N", escIdleCmd},
	"paste":   {"FILE", pasteCmd},
	"lines":   {"N WIDTH", linesCmd},
}

// latencyUsage lists the latency commands, for benchkit's usage line.
func latencyUsage() string {
	var parts []string
	for _, name := range []string{"keys", "esc", "escidle", "paste", "lines"} {
		parts = append(parts, name+" SOCKET PANE "+latencyCommands[name].args)
	}
	return strings.Join(parts, " | ")
}

// runLatency checks the arguments of the latency command name, attaches to the pane and runs
// it; a command gets its arguments after SOCKET PANE.
func runLatency(name string, cmd latencyCommand, args []string) error {
	required := len(strings.Fields(cmd.args)) - strings.Count(cmd.args, "[")
	if len(args) < 2+required || len(args) > 2+len(strings.Fields(cmd.args)) {
		return fmt.Errorf("usage: benchkit %s SOCKET PANE %s", name, cmd.args)
	}
	c, err := attach(args[0], args[1])
	if err != nil {
		return err
	}
	defer c.close()
	return cmd.run(c, args[2:])
}

// number reads a command's numeric argument name, which must be from lo to hi.
func number(name, arg string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(arg)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%s must be a number from %d to %d", name, lo, hi)
	}
	return n, nil
}

// letters are the characters keys types; none of them follows "@@" anywhere else on screen.
const letters = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

// timeout is how long anything may take to show.
const timeout = time.Minute

func keysCmd(c *ctl, args []string) error {
	after, stream := false, false
	for _, flag := range args[1:] {
		switch flag {
		case "--after":
			after = true
		case "--stream":
			stream = true
		default:
			return errors.New("benchkit keys: unknown flag " + flag)
		}
	}
	n, err := number("N", args[0], 1, len(letters))
	if err != nil {
		return err
	}
	// shows reports whether the input shows typed: on its own line after "@@", or as the
	// input's first line (a line that starts with its prompt).
	shows := func(s, typed string) bool {
		if after {
			return strings.Contains(s, "@@"+typed)
		}
		return strings.Contains("\n"+s, "\n"+inputPrompt+typed)
	}
	if after {
		if err := c.sendKeys("C-j"); err != nil {
			return err
		}
		if err := c.sendKeys("-l", "@@"); err != nil {
			return err
		}
		if _, _, err := c.waitFor(func(s string) bool { return shows(s, "") }); err != nil {
			return err
		}
	}
	for i := range n {
		if i > 0 {
			// A pause of 20–50 ms, so that each letter meets the stream at another point.
			time.Sleep(time.Duration(20+(i*7)%31) * time.Millisecond)
		}
		want := letters[:i+1]
		t0 := time.Now()
		if err := c.sendKeys("-l", letters[i:i+1]); err != nil {
			return err
		}
		screen, at, err := c.waitFor(func(s string) bool { return shows(s, want) })
		if err != nil {
			return err
		}
		h := header(screen)
		streaming := 0
		if strings.Contains(h, " streaming") {
			streaming = 1
		}
		fmt.Printf("%.1f %d\n", ms(at.Sub(t0)), streaming)
		if stream && strings.Contains(h, " idle") {
			return nil
		}
	}
	return nil
}

// inputPrompt begins each line of parley's input.
const inputPrompt = "┃ "

func escCmd(c *ctl, args []string) error {
	delay, err := number("MS", args[0], 0, 60_000)
	if err != nil {
		return err
	}
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
	return c.report(t0, func(s string) bool { return strings.Contains(header(s), " idle") })
}

func escIdleCmd(c *ctl, args []string) error {
	n, err := number("N", args[0], 1, 1000)
	if err != nil {
		return err
	}
	// The help line changes with the focus: the SELECT bar while replies are selected, else
	// a line naming what esc does next.
	shows := map[bool]string{true: "SELECT — ", false: "esc select replies"}
	for i := range n {
		time.Sleep(time.Duration(20+(i*7)%31) * time.Millisecond)
		want := shows[i%2 == 0]
		t0 := time.Now()
		if err := c.sendKeys("Escape"); err != nil {
			return err
		}
		if err := c.report(t0, func(s string) bool { return strings.Contains(s, want) }); err != nil {
			return err
		}
	}
	if n%2 == 1 {
		// Back to the input, as it was.
		return c.sendKeys("Escape")
	}
	return nil
}

func pasteCmd(c *ctl, args []string) error {
	text, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimRight(string(text), "\n"), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if _, err := c.run("load-buffer -b benchkit " + quote(args[0])); err != nil {
		return err
	}
	t0 := time.Now()
	if _, err := c.run("paste-buffer -p -d -b benchkit -t " + quote(c.pane)); err != nil {
		return err
	}
	return c.report(t0, func(s string) bool {
		return strings.Contains(s, "[pasted ") || strings.Contains(s, last)
	})
}

func linesCmd(c *ctl, args []string) error {
	n, err := number("N", args[0], 1, 10_000)
	if err != nil {
		return err
	}
	width, err := number("WIDTH", args[1], 10, 10_000)
	if err != nil {
		return err
	}
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

// report waits until the screen shows what ok looks for and prints the milliseconds since t0.
func (c *ctl) report(t0 time.Time, ok func(screen string) bool) error {
	_, at, err := c.waitFor(ok)
	if err != nil {
		return err
	}
	fmt.Printf("%.1f\n", ms(at.Sub(t0)))
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
	pane string
	// lines carries the client's output, a line at a time, read by a goroutine of its own so
	// that a silent tmux is a timeout, not a hang.
	lines chan string
}

// answerTimeout is how long tmux may take to answer a command.
const answerTimeout = 10 * time.Second

// attach starts a control-mode client of the tmux server on socket, attached to pane's
// session, with the pane's output not sent to it. tmux now and then answers a client's first
// command before it is attached ("no current client"): it is tried again.
func attach(socket, pane string) (*ctl, error) {
	var err error
	for range 3 {
		var c *ctl
		if c, err = attachOnce(socket, pane); err == nil {
			return c, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil, fmt.Errorf("attaching to %s: %w", pane, err)
}

func attachOnce(socket, pane string) (*ctl, error) {
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
	c := &ctl{cmd: cmd, in: in, pane: pane, lines: make(chan string, 256)}
	go func() {
		defer close(c.lines)
		r := bufio.NewReaderSize(out, 1<<16)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			c.lines <- strings.TrimSuffix(line, "\n")
		}
	}()
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

// close detaches the client, and ends it if it does not go.
func (c *ctl) close() {
	c.in.Close()
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Second):
		c.cmd.Process.Kill()
		<-done
	}
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
	deadline := time.After(answerTimeout)
	for {
		var line string
		var ok bool
		select {
		case line, ok = <-c.lines:
			if !ok {
				return "", fmt.Errorf("tmux %s: the control client ended", command)
			}
		case <-deadline:
			return "", fmt.Errorf("tmux %s: no answer in %v", command, answerTimeout)
		}
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
