// Command screens draws the docs' pictures of the chat screen from the real binary: it builds
// parley, runs it on the offline demo in tmux (120×32, a fresh PARLEY_HOME each time), brings
// it to each state by keys as a user would, waiting for what the pane shows, captures the pane
// with its colours (capture-pane -e) and writes each state as an SVG into docs/screens/.
//
//	go run ./scripts/screens              # from the repository's root
//	go run ./scripts/screens -only tier2  # one state
//
// The tool question needs node and the MCP servers of scripts/mcp (npm ci --prefix scripts/mcp).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

const width, height = 120, 32

// state is one picture: how the pane is set up and the keys that bring the screen to it.
type state struct {
	name, title string
	light       bool
	config      func(home string) (string, error) // config.toml, "" for none
	drive       func(s *session) error
}

var states = []state{
	{name: "chat-dark", title: "parley: a reply with a code block, dark", drive: codeReply},
	{name: "chat-light", title: "parley: a reply with a code block, light", light: true, drive: codeReply},
	{name: "tier2", title: "parley: Tier 2 counting down to a retry after 503s", drive: tier2},
	{name: "versions", title: "parley: the versions of a regenerated reply", drive: versions},
	{name: "tool-question", title: "parley: a tool call asks first", config: toolsConfig, drive: toolQuestion},
}

func main() {
	out := flag.String("out", "docs/screens", "where the SVGs go")
	only := flag.String("only", "", "draw this state alone")
	flag.Parse()
	if _, err := os.Stat("go.mod"); err != nil {
		fail("run from the repository's root: %v", err)
	}
	tmp, err := os.MkdirTemp("", "screens")
	if err != nil {
		fail("%v", err)
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "parley")
	if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		fail("go build: %v\n%s", err, b)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail("%v", err)
	}
	if *only != "" && !slices.ContainsFunc(states, func(st state) bool { return st.name == *only }) {
		names := make([]string, len(states))
		for i, st := range states {
			names[i] = st.name
		}
		fail("no state %q: the states are %s", *only, strings.Join(names, ", "))
	}
	failed := false
	for i, st := range states {
		if *only != "" && st.name != *only {
			continue
		}
		screen, err := shoot(bin, tmp, st, fmt.Sprintf("screens%d-%d", os.Getpid(), i))
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", st.name, err)
			failed = true
			continue
		}
		path := filepath.Join(*out, st.name+".svg")
		if err := os.WriteFile(path, []byte(svg(screen, st.title, st.light)), 0o644); err != nil {
			fail("%v", err)
		}
		fmt.Println("wrote", path)
	}
	if failed {
		os.Exit(1)
	}
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "screens: "+format+"\n", a...)
	os.Exit(2)
}

// session is one tmux server running parley in its only pane.
type session struct {
	socket string
}

func (s *session) tmux(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// screen is the pane's text, without colours.
func (s *session) screen() string {
	out, _ := s.tmux("capture-pane", "-p", "-t", "p")
	return out
}

// wait waits until the pane shows every one of texts.
func (s *session) wait(limit time.Duration, texts ...string) error {
	end := time.Now().Add(limit)
	for {
		screen := s.screen()
		all := true
		for _, t := range texts {
			all = all && strings.Contains(screen, t)
		}
		if all {
			return nil
		}
		if time.Now().After(end) {
			return fmt.Errorf("the pane never showed %q:\n%s", texts, screen)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// still waits until the pane has stopped changing: a reply has all come and been rendered.
func (s *session) still() error {
	end := time.Now().Add(30 * time.Second)
	last, same := "", 0
	for same < 3 {
		if time.Now().After(end) {
			return fmt.Errorf("the pane never settled:\n%s", last)
		}
		time.Sleep(200 * time.Millisecond)
		screen := s.screen()
		if screen == last {
			same++
		} else {
			same = 0
		}
		last = screen
	}
	return nil
}

// send types text and, once the input shows it, enter: an enter read in the same burst as the
// text would be taken as part of a paste.
func (s *session) send(text string) error {
	if _, err := s.tmux("send-keys", "-t", "p", "-l", text); err != nil {
		return err
	}
	if err := s.wait(10*time.Second, "┃ "+text); err != nil {
		return err
	}
	return s.key("Enter")
}

// key presses keys, by tmux's names.
func (s *session) key(keys ...string) error {
	_, err := s.tmux(append([]string{"send-keys", "-t", "p"}, keys...)...)
	return err
}

// shoot runs parley for one state and returns the pane's capture with its escape sequences.
func shoot(bin, tmp string, st state, socket string) (string, error) {
	home, err := os.MkdirTemp(tmp, st.name)
	if err != nil {
		return "", err
	}
	if st.config != nil {
		config, err := st.config(home)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o600); err != nil {
			return "", err
		}
	}
	// The pane's colours are set in the server's configuration, read before the pane starts,
	// so parley's OSC 11 question is answered with them.
	style := "fg=white,bg=black"
	if st.light {
		style = "fg=black,bg=white"
	}
	conf := filepath.Join(tmp, st.name+".tmux.conf")
	if err := os.WriteFile(conf, []byte("set -g window-style "+style+"\nset -g status off\n"), 0o600); err != nil {
		return "", err
	}
	s := &session{socket: socket}
	defer s.tmux("kill-server")
	// The retry budget's state file lives in the runtime directory: a fresh one keeps these
	// retries off the user's own budget.
	cmd := fmt.Sprintf("env PARLEY_HOME=%s XDG_RUNTIME_DIR=%s XDG_CACHE_HOME=%s %s --demo; sleep 600",
		quote(home), quote(home), quote(home), quote(bin))
	if _, err := exec.Command("tmux", "-L", socket, "-f", conf, "new-session", "-d", "-s", "p",
		"-x", fmt.Sprint(width), "-y", fmt.Sprint(height), cmd).CombinedOutput(); err != nil {
		return "", fmt.Errorf("tmux new-session: %v", err)
	}
	if err := s.wait(20*time.Second, "idle"); err != nil {
		return "", err
	}
	if err := st.drive(s); err != nil {
		return "", err
	}
	return s.tmux("capture-pane", "-e", "-p", "-t", "p")
}

// quote is s as one word of a shell command.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// codeReply asks the demo for code and waits for the whole reply.
func codeReply(s *session) error {
	if err := s.send("show me a function in go"); err != nil {
		return err
	}
	if err := s.wait(60*time.Second, "Retry-After", "idle"); err != nil {
		return err
	}
	return s.still()
}

// tier2 makes every attempt of Tier 1 meet a 503, so the run ends and Tier 2 counts down.
func tier2(s *session) error {
	if err := s.send("/demo overload 6"); err != nil {
		return err
	}
	if err := s.wait(10*time.Second, "503"); err != nil {
		return err
	}
	if err := s.send("what does parley do while a provider is overloaded?"); err != nil {
		return err
	}
	return s.wait(60*time.Second, "retrying in", "enter retry now")
}

// versions regenerates a reply and opens its versions.
func versions(s *session) error {
	if err := s.send("explain retries in two sentences"); err != nil {
		return err
	}
	if err := s.wait(60*time.Second, "idle"); err != nil {
		return err
	}
	if err := s.still(); err != nil {
		return err
	}
	if err := s.selectReplies(); err != nil {
		return err
	}
	if err := s.key("r"); err != nil {
		return err
	}
	if err := s.wait(60*time.Second, "2/2"); err != nil {
		return err
	}
	if err := s.still(); err != nil {
		return err
	}
	if !strings.Contains(s.screen(), "SELECT") {
		if err := s.selectReplies(); err != nil {
			return err
		}
	}
	if err := s.key("["); err != nil {
		return err
	}
	if err := s.wait(10*time.Second, "1/2"); err != nil {
		return err
	}
	return s.still()
}

// selectReplies presses esc until the bar says replies are selected: an esc just after a
// reply ended is taken as meant to stop it, and says so.
func (s *session) selectReplies() error {
	for range 3 {
		if err := s.key("Escape"); err != nil {
			return err
		}
		if s.wait(2*time.Second, "SELECT") == nil {
			return nil
		}
	}
	return fmt.Errorf("esc never selected replies:\n%s", s.screen())
}

// toolsConfig names server-everything, from scripts/mcp.
func toolsConfig(string) (string, error) {
	entry, err := filepath.Abs("scripts/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(entry); err != nil {
		return "", fmt.Errorf("server-everything is not installed (npm ci --prefix scripts/mcp): %v", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return "", fmt.Errorf("node is not installed: %v", err)
	}
	return fmt.Sprintf("[mcp.everything]\ncommand = [%q, %q, \"stdio\"]\n", node, entry), nil
}

// toolQuestion turns server-everything's tools on and has the demo's next reply ask for a
// call of its echo.
func toolQuestion(s *session) error {
	if err := s.send("/tools on everything"); err != nil {
		return err
	}
	if err := s.wait(30*time.Second, "tools on"); err != nil {
		return err
	}
	if err := s.send(`/demo tool echo {"message":"hello from parley"}`); err != nil {
		return err
	}
	if err := s.wait(10*time.Second, "the next reply asks to call echo"); err != nil {
		return err
	}
	if err := s.send("say hello through the echo tool"); err != nil {
		return err
	}
	if err := s.wait(30*time.Second, "run everything.echo", "enter confirm"); err != nil {
		return err
	}
	// Nothing is chosen at first; → chooses the first answer, as the picture shows.
	if err := s.key("Right"); err != nil {
		return err
	}
	if err := s.wait(10*time.Second, "[run once]"); err != nil {
		return err
	}
	return s.still()
}
