package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/internal/demo"
)

// End-to-end runs of the built binary under tmux for the daily driver: a role's system prompt
// through a regeneration, editing and resending a message, $EDITOR, and a question given on
// the command line.

// waitReplies waits until the newest session holds n live replies, each finished.
func (p *pane) waitReplies(n int) []exported {
	p.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		msgs := p.export()
		live, done := 0, 0
		for _, m := range msgs {
			if m.Role == "assistant" && !m.Superseded {
				live++
				if m.Status == "succeeded" {
					done++
				}
			}
		}
		if live == n && done == n {
			return msgs
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out waiting for %d replies: %+v\n%s", n, msgs, p.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// sendAndWait sends text, as send does, and waits until the newest session holds n live
// replies, each finished.
func (p *pane) sendAndWait(text string, n int) []exported {
	p.t.Helper()
	p.send(text)
	return p.waitReplies(n)
}

// selectMessages presses esc and waits for the transcript to take the keys: a key pressed
// too soon after esc would reach parley as alt+key.
func (p *pane) selectMessages() {
	p.t.Helper()
	p.escSelects("r regenerate")
}

// writeFile writes text to name under dir, with mode.
func writeFile(t *testing.T, dir, name, text string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTmuxARolesPromptSurvivesRegenerate(t *testing.T) {
	t.Parallel()
	p := newPane(t, "m", demo.Options{})
	writeFile(t, p.home, "roles/poet.md", "Answer in verse.\n", 0o600)
	p.start(100, 30, nil, "--role", "poet")
	p.waitScreen("role poet")
	p.sendAndWait("hello", 1)
	p.waitScreen("System prompt · role poet")
	p.selectMessages()
	p.key("r")
	p.waitRequests(2)
	p.waitReplies(1)
	got := p.srv.Received()
	if len(got) != 2 || got[0].Messages[0].Role != "system" || got[0].Messages[0].Content != "Answer in verse." {
		t.Fatalf("requests %+v", got)
	}
	if !bytes.Equal(got[0].Body, got[1].Body) {
		t.Fatalf("the regenerated request differs:\n%s\n%s", got[0].Body, got[1].Body)
	}
}

func TestTmuxEditAndResend(t *testing.T) {
	t.Parallel()
	p := newChatPane(t, 100, 30, nil)
	p.sendAndWait("first question", 1)
	p.sendAndWait("secnd question", 2)
	p.selectMessages()
	p.key("k") // the question of the newest reply
	p.press("e", "editing your message")
	p.key("C-u")
	p.send("second question")
	p.waitRequests(3)
	msgs := p.waitReplies(2)
	p.requests(3)
	if sent := p.srv.Received()[2].Messages; sent[len(sent)-1].Content != "second question" || len(sent) != 3 {
		t.Fatalf("the edit sent %+v", sent)
	}
	var turns []string
	for _, m := range msgs {
		state := "live"
		if m.Superseded {
			state = "superseded"
		}
		if m.Role == "user" {
			turns = append(turns, m.Content+" "+state)
		} else {
			turns = append(turns, "reply "+state)
		}
	}
	want := "first question live,reply live,secnd question superseded,reply superseded,second question live,reply live"
	if strings.Join(turns, ",") != want {
		t.Fatalf("stored %s\nwant   %s", strings.Join(turns, ","), want)
	}
	p.selectMessages()
	p.press("[", "Version 1/2 · superseded")
	p.waitScreen("secnd question")
}

func TestTmuxEditorFillsTheInput(t *testing.T) {
	t.Parallel()
	p := newPane(t, "m", demo.Options{})
	// The editor writes fixed text, unless the file asks it to save nothing.
	editor := writeFile(t, t.TempDir(), "editor.sh",
		"#!/bin/sh\nif grep -q 'leave me' \"$1\"; then : > \"$1\"; else printf 'written in the editor\\n' > \"$1\"; fi\n", 0o700)
	p.start(100, 30, []string{"VISUAL=", "EDITOR=" + editor})
	p.press("?", "ctrl+x")
	p.waitScreen("$EDITOR")
	p.key("?")
	p.typeText("a draft")
	s := p.press("C-x", "┃ written in the editor")
	if strings.Contains(s, "a draft") {
		t.Fatalf("the draft is still in the input:\n%s", s)
	}
	p.key("C-u")
	p.typeText("leave me")
	s = p.press("C-x", "the editor saved nothing")
	if !strings.Contains(s, "┃ leave me") {
		t.Fatalf("an empty save changed the input:\n%s", s)
	}
	p.key("C-u")
	p.send("/quit")
}

// An editor that fails says why on the screen, and leaves nothing on the terminal under it.
func TestTmuxAFailingEditorSaysWhyAndLeavesNoTrace(t *testing.T) {
	t.Parallel()
	p := newPane(t, "m", demo.Options{})
	editor := writeFile(t, t.TempDir(), "editor.sh", "#!/bin/sh\necho 'editor-k25: cannot open the terminal' >&2\nexit 3\n", 0o700)
	p.start(100, 30, []string{"VISUAL=", "EDITOR=" + editor})
	p.press("C-x", "the editor failed: exit status 3 (editor-k25: cannot open the terminal)")
	p.send("/quit")
	p.waitGone()
	if s := p.screen(); strings.Contains(s, "editor-k25") {
		t.Fatalf("the editor's words are left on the terminal after quitting:\n%s", s)
	}
}

func TestTmuxAQuestionOnTheCommandLineIsSent(t *testing.T) {
	t.Parallel()
	p := newChatPane(t, 100, 30, nil, "'what are the keys?'")
	p.waitReplies(1)
	if got := p.srv.Received()[0].Messages; len(got) != 1 || got[0].Content != "what are the keys?" {
		t.Fatalf("sent %+v", got)
	}
	p.waitScreen("what are the keys?")
}

// -c in the chat screen continues the session the screen last sent in, not the one print mode
// wrote to since; print mode's -c continues the latest of any kind.
func TestTmuxDashCContinuesTheScreensSession(t *testing.T) {
	t.Parallel()
	p := newChatPane(t, 100, 30, nil)
	p.sendAndWait("quokkas in the chat screen", 1)
	p.send("/quit")
	p.waitGone()
	p.tmux("kill-session", "-t", "parley")
	p.printMode("-p", "wombats in print mode")

	p.start(100, 30, nil, "-c")
	p.key("Home")
	if s := p.waitScreen("quokkas in the chat screen"); strings.Contains(s, "wombats") {
		t.Fatalf("-c opened the print-mode session:\n%s", s)
	}
	p.send("/quit")
	if got := p.srv.Received()[1].Messages[0].Content; got != "wombats in print mode" {
		t.Fatalf("print mode sent %q in a session of its own", got)
	}
	p.printMode("-p", "and in print mode?", "-c")
	if got := p.srv.Received()[2].Messages; len(got) != 3 || got[0].Content != "wombats in print mode" {
		t.Fatalf("print mode's -c sent %+v; want the print-mode session continued", got)
	}
}
