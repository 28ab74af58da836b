package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"parley/internal/chat"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
	"parley/internal/testenv"
)

// End-to-end runs of the built parley binary under tmux: the harness, and the tests of
// sending, streaming, cancelling, queueing, scrolling, resizing, quitting and -c, and of what
// the first screen says.

// pane is the built parley running in a tmux server of its own, against a request-counting
// demo endpoint in this process, with a PARLEY_HOME of its own.
type pane struct {
	t      *testing.T
	socket string
	bin    string
	model  string
	home   string
	srv    *demo.Server
	// baseURL, when set, is the endpoint parley is started against instead of srv's.
	baseURL string

	controlMu sync.Mutex
	control   *controlClient // started by the first command that goes over it
}

// paneSeq numbers the tmux servers of this process.
var paneSeq atomic.Int32

// newPane starts a demo endpoint with opts and a tmux server for parley to run in against
// it, asking for model. Nothing runs in the server until start.
func newPane(t *testing.T, model string, opts demo.Options) *pane {
	t.Helper()
	p := &pane{t: t, socket: fmt.Sprintf("parley-test-%d-%d", os.Getpid(), paneSeq.Add(1)),
		bin: tmuxBinary(t), model: model, home: t.TempDir(), srv: demotest.Start(t, opts)}
	t.Cleanup(func() { exec.Command("tmux", "-L", p.socket, "kill-server").Run() })
	return p
}

// newChatPane starts the chat screen in a new w×h pane, as start does, against a demo
// endpoint in its defaults, asking for model "m".
func newChatPane(t *testing.T, w, h int, env []string, args ...string) *pane {
	t.Helper()
	p := newPane(t, "m", demo.Options{})
	p.start(w, h, env, args...)
	return p
}

// tmux runs one tmux command in the pane's server: over the pane's control client when the
// command names its target, in a tmux process of its own otherwise.
func (p *pane) tmux(args ...string) string {
	p.t.Helper()
	if c := p.controlFor(args); c != nil {
		out, err := c.run(args)
		if err == nil {
			return out
		}
		if !errors.Is(err, errControlGone) {
			p.t.Fatalf("tmux %v: %v", args, err)
		}
		p.controlMu.Lock()
		p.control = nil // the server has gone: a tmux process says why, and the next command starts a client again
		p.controlMu.Unlock()
	}
	out, err := exec.Command("tmux", append([]string{"-L", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

// controlFor returns the control client a command goes over, starting it on the first; nil
// when the command does not go over one or a client cannot start.
func (p *pane) controlFor(args []string) *controlClient {
	if !overControl(args) {
		return nil
	}
	p.controlMu.Lock()
	defer p.controlMu.Unlock()
	if p.control == nil {
		c, err := startControl(p.t, p.socket)
		if err != nil {
			p.t.Logf("tmux control client: %v; each command runs a tmux process", err)
			return nil
		}
		p.control = c
	}
	return p.control
}

// command is the shell command that runs the TUI with env and args, and then keeps the pane
// open.
func (p *pane) command(env []string, args ...string) string {
	env = append(env, "PARLEY_HOME="+p.home)
	base := p.srv.URL()
	if p.baseURL != "" {
		base = p.baseURL
	}
	args = append([]string{"--base-url", base, "--model", p.model}, args...)
	return fmt.Sprintf("env %s %s %s; sleep 60", strings.Join(env, " "), p.bin, strings.Join(args, " "))
}

// start runs the TUI in a new w×h session of the server and waits for its first frame.
func (p *pane) start(w, h int, env []string, args ...string) {
	p.t.Helper()
	p.newSession("-d", "-s", "parley", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), p.command(env, args...))
	p.waitScreen("idle")
}

// newSession starts the session, and with it the tmux server when it is not running yet.
// Starting the server has failed once on a loaded machine, so it is tried three times.
func (p *pane) newSession(args ...string) {
	p.t.Helper()
	var out []byte
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		out, err = exec.Command("tmux", append([]string{"-L", p.socket, "new-session"}, args...)...).CombinedOutput()
		if err == nil || exec.Command("tmux", "-L", p.socket, "has-session", "-t", "parley").Run() == nil {
			return
		}
		p.t.Logf("tmux new-session, attempt %d: %v: %s", attempt, err, out)
		if attempt < 3 {
			time.Sleep(time.Duration(attempt) * 250 * time.Millisecond)
		}
	}
	p.t.Fatalf("tmux new-session: %v: %s", err, out)
}

// parley runs the binary outside tmux on the pane's home, and returns its standard output.
func (p *pane) parley(args ...string) []byte {
	p.t.Helper()
	cmd := exec.Command(p.bin, args...)
	cmd.Env = append(os.Environ(), "PARLEY_HOME="+p.home)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if exit := (*exec.ExitError)(nil); errors.As(err, &exit) {
			stderr = exit.Stderr
		}
		p.t.Fatalf("parley %v: %v\n%s", args, err, stderr)
	}
	return out
}

// printMode runs parley in print mode outside tmux on the pane's home, against its endpoint
// and model, with args, and returns its standard output.
func (p *pane) printMode(args ...string) []byte {
	p.t.Helper()
	return p.parley(append(args, "--base-url", p.srv.URL(), "--model", p.model)...)
}

// send types text and presses enter.
func (p *pane) send(text string) {
	p.typeText(text)
	p.key("Enter")
}

// typeText types text, each character as itself, and presses nothing after it.
func (p *pane) typeText(text string) { p.tmux("send-keys", "-t", "parley", "-l", text) }

// key presses one key, in tmux's names.
func (p *pane) key(k string) { p.tmux("send-keys", "-t", "parley", k) }

// keys presses each key in turn, one send-keys a key, as a user's presses arrive.
func (p *pane) keys(ks ...string) {
	for _, k := range ks {
		p.key(k)
	}
}

// press presses key k and waits until the pane shows text, and returns the screen.
func (p *pane) press(k, text string) string {
	p.t.Helper()
	p.key(k)
	return p.waitScreen(text)
}

// screen returns what the pane shows.
func (p *pane) screen() string { return p.tmux("capture-pane", "-p", "-t", "parley") }

// waitScreen waits until the pane shows text.
func (p *pane) waitScreen(text string) string {
	p.t.Helper()
	return p.waitScreenAny(text)
}

// waitScreenAny waits until the pane shows one of texts, and returns the screen.
func (p *pane) waitScreenAny(texts ...string) string {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := p.screen()
		for _, text := range texts {
			if strings.Contains(s, text) {
				return s
			}
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out waiting for %q; screen:\n%s", texts, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitScreenNot waits until the pane no longer shows text.
func (p *pane) waitScreenNot(text string) {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for s := p.screen(); strings.Contains(s, text); s = p.screen() {
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out waiting for %q to go; screen:\n%s", text, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// headerStart starts the chat screen's first line: while the pane shows it, parley is running.
const headerStart = "parley ·"

// waitGone waits until parley has quit and its screen has left the pane.
func (p *pane) waitGone() {
	p.t.Helper()
	p.waitScreenNot(headerStart)
}

// exported is one message of `parley export --json`.
type exported struct {
	ID         int64
	Role       string
	Content    string
	Status     string
	Superseded bool
	Retry      *chat.Classification
}

// export returns the messages of the newest session as `parley export --json` prints them;
// none before a session is stored (with its first message).
func (p *pane) export() []exported {
	p.t.Helper()
	list := strings.Fields(string(p.parley("sessions")))
	if len(list) == 0 {
		return nil
	}
	id := list[0]
	var out struct{ Messages []exported }
	if err := json.Unmarshal(p.parley("export", id, "--json"), &out); err != nil {
		p.t.Fatal(err)
	}
	return out.Messages
}

// TestTmuxEndToEnd runs the parley binary in tmux against a local endpoint: send, stream,
// cancel, queue during a run, scroll up during streaming, resize, quit, and -c.
func TestTmuxEndToEnd(t *testing.T) {
	t.Parallel()
	p := newPane(t, "fake-model", demo.Options{Pace: 10 * time.Millisecond, Tokens: 300})
	p.start(100, 30, nil)
	p.send("first question")
	p.waitScreen("esc cancels")
	p.press("Escape", "cancelled")

	p.send("second question")
	p.waitScreen("streaming")
	p.send("third question")
	p.waitScreen("queued: sends when the current reply ends")

	// Scrolled up during streaming, the window stays where the operator put it. First wait
	// for the reply to push the first exchange off the screen.
	p.waitScreenNot("cancelled")
	p.key("PPage")
	before := p.waitScreen("scrolled up")
	// More of the reply stored is the event the window must not move on: the screen had that
	// text before it was stored.
	replyLen := func(msgs []exported) int {
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Role == "assistant" {
				return len(msgs[i].Content)
			}
		}
		return 0
	}
	at := replyLen(p.export())
	p.waitExport("more of the reply stored", func(msgs []exported) bool { return replyLen(msgs) > at })
	after := p.screen()
	if !strings.Contains(after, "streaming") {
		t.Fatalf("the run ended too soon to check scrolling:\n%s", after)
	}
	if transcriptTop(before) != transcriptTop(after) {
		t.Fatalf("window moved while scrolled up:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	p.key("End")

	p.tmux("resize-window", "-t", "parley", "-x", "60", "-y", "20")
	s := p.waitScreen("idle")
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 20 {
		t.Fatalf("%d lines after resizing to 20:\n%s", len(lines), s)
	}
	for _, l := range lines {
		if w := len([]rune(l)); w > 60 {
			t.Fatalf("line of %d columns after resizing to 60: %q", w, l)
		}
	}
	p.quit()
	p.tmux("kill-session", "-t", "parley")

	// The database says what the screen said.
	var statuses []string
	for _, m := range p.export() {
		if m.Role == "assistant" {
			statuses = append(statuses, m.Status)
		}
	}
	if strings.Join(statuses, " ") != "cancelled succeeded succeeded" {
		t.Fatalf("stored replies: %v", statuses)
	}

	// -c opens the latest session with its history.
	p.start(100, 30, nil, "-c")
	p.press("Home", "first question\n")
	p.waitScreen("cancelled")
	p.key("C-c")
}

// transcriptTop returns the first transcript lines of a screen, below the header.
func transcriptTop(screen string) string {
	lines := strings.Split(screen, "\n")
	if len(lines) < 8 {
		return screen
	}
	return strings.Join(lines[1:8], "\n")
}

// tmuxBinary returns the built parley for a tmux test, skipping it under -short. A missing
// tmux skips it on a machine with only Go and fails it in CI (testenv.Strict).
func tmuxBinary(t *testing.T) string {
	t.Helper()
	bin := binary(t)
	testenv.Tool(t, "tmux", "apt-get install tmux")
	return bin
}

// The first screen says what parley will talk to when the operator may not know.

func TestTmuxAKeyAloneIsOpenAISaidOnTheFirstScreen(t *testing.T) {
	t.Parallel()
	p := newPane(t, "m", demo.Options{})
	// No config, no flags, no OPENAI_BASE_URL: only the key most developers have exported.
	// Nothing is sent: the test only reads the first screen.
	cmd := fmt.Sprintf("env -u OPENAI_BASE_URL -u PARLEY_MODEL PARLEY_HOME=%s OPENAI_API_KEY=sk-k25-not-a-key %s; sleep 60", p.home, p.bin)
	p.newSession("-d", "-s", "parley", "-x", "110", "-y", "30", cmd)
	s := p.waitScreen("idle")
	if !strings.Contains(s, "using OPENAI_API_KEY: gpt-4o-mini at api.openai.com · --demo for the offline demo") {
		t.Fatalf("the first screen does not say where messages go:\n%s", s)
	}
	if !strings.Contains(s, "openai · gpt-4o-mini") {
		t.Fatalf("the header does not name the endpoint:\n%s", s)
	}
}

func TestTmuxAKeyNotSetIsInTheHeaderAtStart(t *testing.T) {
	t.Parallel()
	p := newChatPane(t, 110, 30, nil, "--api-key-env", "PARLEY_K25_UNSET")
	s := p.screen()
	header := strings.SplitN(s, "\n", 2)[0]
	if !strings.Contains(header, "PARLEY_K25_UNSET not set") {
		t.Fatalf("the header does not say the key is not set:\n%s", s)
	}
	if !strings.Contains(s, "PARLEY_K25_UNSET is not set: export PARLEY_K25_UNSET=…") {
		t.Fatalf("the first screen does not name the fix:\n%s", s)
	}
	p.requests(0)
}
