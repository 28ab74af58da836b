package e2e

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/internal/chat/chattest"
	"parley/internal/demo"
	"parley/internal/testenv"
)

// End-to-end runs of the built binary under tmux for copying and pasting: the mouse left to
// the terminal (tmux sees no mouse mode, so a drag selects text) with the wheel kept through
// alternate scroll; y and Y through xclip on a display of Xvfb's, read back with xclip; pastes
// that arrive as keys, and an image pasted from the clipboard.

// xDisplay starts an X server of its own for the test and returns its DISPLAY. It skips
// under -short; without xclip and Xvfb it skips on a machine with only Go and fails in CI.
func xDisplay(t *testing.T) string {
	t.Helper()
	binary(t) // skips under -short
	for _, tool := range []string{"Xvfb", "xclip"} {
		testenv.Tool(t, tool, "apt-get install xvfb xclip")
	}
	// Xvfb chooses a free display and says which: a number chosen here could be another's,
	// or a socket a killed server left behind.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	x := exec.Command("Xvfb", "-displayfd", "3", "-nolisten", "tcp", "-screen", "0", "640x480x24")
	x.ExtraFiles = []*os.File{w}
	if err := x.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { x.Process.Kill(); x.Wait() })
	said := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		said <- strings.TrimSpace(line)
	}()
	select {
	case n := <-said:
		if n == "" {
			t.Fatal("Xvfb did not start")
		}
		return ":" + n
	case <-time.After(30 * time.Second): // a loaded machine starts it in seconds, not one
		t.Fatal("Xvfb did not say its display within 30 s")
	}
	return ""
}

// clipboardOn reads the clipboard of display with xclip.
func clipboardOn(t *testing.T, display string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "xclip", "-o", "-selection", "clipboard")
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xclip -o: %v", err)
	}
	return string(out)
}

// waitClipboard waits until the clipboard on display holds want, and returns what it last
// held. xclip -i exits as it forks, and its child takes the selection only after that: until
// then the clipboard still holds what was copied before.
func waitClipboard(t *testing.T, display, want string) string {
	t.Helper()
	got := clipboardOn(t, display)
	for deadline := time.Now().Add(5 * time.Second); got != want && time.Now().Before(deadline); got = clipboardOn(t, display) {
		time.Sleep(20 * time.Millisecond)
	}
	return got
}

// codeAnswer is a reply with two code blocks and HTML between them.
const codeAnswer = "Two ways:\n\n```go\nvar names List<String>\nfor i := 0; i<n; i++ {}\n```\n\nor, with <b>less</b> code:\n\n```sh\necho \"a <tag>\"\n```\n"

func TestTmuxCopyThroughXclip(t *testing.T) {
	t.Parallel()
	display := xDisplay(t)
	p := newPane(t, "m", demo.Options{})
	p.srv.Push(demo.Fault{Stream: sseReply(codeAnswer, 5)})
	p.start(100, 30, []string{"DISPLAY=" + display, "WAYLAND_DISPLAY=", "SSH_TTY=", "SSH_CONNECTION="})
	p.sendAndWait("code please", 1)
	p.selectMessages()
	p.press("y", "the reply copied with xclip")
	if got := waitClipboard(t, display, codeAnswer); got != codeAnswer {
		t.Fatalf("y put %q on the clipboard, want the reply %q", got, codeAnswer)
	}
	p.press("Y", "code block 1 of 2 (Y again: the next) copied with xclip")
	first := "var names List<String>\nfor i := 0; i<n; i++ {}\n"
	if got := waitClipboard(t, display, first); got != first {
		t.Fatalf("Y put %q on the clipboard", got)
	}
	p.press("Y", "code block 2 of 2")
	second := "echo \"a <tag>\"\n"
	if got := waitClipboard(t, display, second); got != second {
		t.Fatalf("Y again put %q on the clipboard", got)
	}
}

// The mouse is the terminal's: tmux sees no mouse mode in the pane, so its drag selects text
// without shift; ctrl+t captures it and gives it back. parley asks for alternate scroll, and
// the arrows a terminal sends for the wheel then scroll the transcript.
func TestTmuxTheMouseIsTheTerminals(t *testing.T) {
	t.Parallel()
	p := newPane(t, "m", demo.Options{Tokens: 400})
	out := filepath.Join(t.TempDir(), "pane.out")
	// The pane's output is read from its first byte: parley starts once the pipe is on.
	p.tmux("new-session", "-d", "-s", "parley", "-x", "80", "-y", "24", "sleep 0.3; "+p.command(nil))
	p.tmux("pipe-pane", "-t", "parley", "-o", "cat > "+out)
	p.tmux("set-option", "-t", "parley", "mouse", "on")
	p.waitScreen("idle")
	mouse := func() string {
		return strings.TrimSpace(p.tmux("display-message", "-p", "-t", "parley", "#{mouse_any_flag}"))
	}
	if got := mouse(); got != "0" {
		t.Fatalf("mouse_any_flag %s at start: parley captures the mouse", got)
	}
	p.press("C-t", "mouse captured")
	if got := mouse(); got != "1" {
		t.Fatalf("mouse_any_flag %s after ctrl+t", got)
	}
	p.press("C-t", "mouse left to the terminal")
	if got := mouse(); got != "0" {
		t.Fatalf("mouse_any_flag %s after ctrl+t again", got)
	}
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), "\x1b[?1007h") {
		t.Fatalf("parley did not ask for alternate scroll; it wrote %d bytes", len(b))
	}
	p.sendAndWait("a long answer please", 1)
	for range 3 {
		p.key("Up") // what a terminal sends for the wheel, in alternate scroll
	}
	s := p.waitScreen("scrolled up")
	if !strings.Contains(s, "┃ Ask anything") {
		t.Fatalf("the wheel's arrows changed the input:\n%s", s)
	}
	p.keys("Down", "Down", "Down")
	p.waitScreenNot("scrolled up")
}

// One backspace removes a whole ZWJ emoji, and the arrows never stop inside one.
func TestTmuxBackspaceRemovesAWholeEmoji(t *testing.T) {
	t.Parallel()
	p := newChatPane(t, 80, 20, nil)
	p.typeText("a👩‍👩‍👧‍👦b")
	p.waitScreen("┃ a")
	p.keys("Left", "BSpace")
	p.waitScreen("┃ ab")
	p.typeText("🏳️‍🌈")
	p.keys("Left", "Right")
	p.typeText("|")
	p.key("Enter")
	p.waitReplies(1)
	if got := p.srv.Received()[0].Messages; got[len(got)-1].Content != "a🏳️‍🌈|b" {
		t.Fatalf("sent %q", got[len(got)-1].Content)
	}
}

// Pastes that arrive as keys: tmux's paste-buffer without -p sends no bracketed paste, only the
// text with each line ended by a carriage return, as many terminals do.

func TestTmuxAPasteWithoutBracketsIsOneMessage(t *testing.T) {
	t.Parallel()
	p := newChatPane(t, 100, 30, nil)
	lines := []string{"please review these lines:", "alpha beta", "", "gamma delta", "the last line"}
	p.tmux("set-buffer", "-b", "k25", strings.Join(lines, "\n"))
	p.tmux("paste-buffer", "-b", "k25", "-t", "parley")
	p.waitScreen("the last line")
	p.requests(0)
	// Enter's message is the barrier: a line the paste had sent would have left before it, as
	// the first request.
	p.key("Enter")
	p.waitRequests(1)
	got := p.srv.Received()[0].Messages
	if last := got[len(got)-1].Content; last != strings.Join(lines, "\n") {
		t.Fatalf("sent %q, want the paste whole", last)
	}
}

// An image on the system clipboard (put there with xclip, on a display of Xvfb's) becomes a
// chip with ctrl+v and goes with the next message, byte for byte.
func TestTmuxPasteAnImageFromTheClipboard(t *testing.T) {
	t.Parallel()
	display := xDisplay(t)
	picture := chattest.PNG(t, 48, 32)
	// xclip forks to serve the selection, and goes with the display; its output is not
	// captured, or waiting for it would wait for the fork.
	owner := exec.Command("xclip", "-selection", "clipboard", "-t", "image/png", "-i")
	owner.Env = append(os.Environ(), "DISPLAY="+display)
	owner.Stdin = bytes.NewReader(picture)
	if err := owner.Run(); err != nil {
		t.Fatalf("xclip -i: %v", err)
	}

	p := newChatPane(t, 100, 30, []string{"DISPLAY=" + display, "WAYLAND_DISPLAY=", "SSH_TTY=", "SSH_CONNECTION="})
	p.press("C-v", "▣ clipboard · 48×32 · ")
	p.send("what is on my clipboard?")
	p.press("Enter", "PNG, 48×32 pixels")
	got := p.srv.Received()[0].Messages[0]
	if got.Content != "what is on my clipboard?" || len(got.Images) != 1 || !bytes.Equal(got.Images[0].Data, picture) {
		t.Fatalf("sent %q with %d images", got.Content, len(got.Images))
	}

	// With text on the clipboard, ctrl+v says there is no image and leaves the input alone.
	text := exec.Command("xclip", "-selection", "clipboard", "-i")
	text.Env = append(os.Environ(), "DISPLAY="+display)
	text.Stdin = bytes.NewReader([]byte("just words"))
	if err := text.Run(); err != nil {
		t.Fatal(err)
	}
	waitClipboard(t, display, "just words")
	p.press("C-v", "nothing attached: the clipboard holds no image")
}
