package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/history/stored"
	"parley/internal/chat"
	"parley/tui/clipboard"
)

// codeReply is a session whose reply holds two code blocks.
func codeReply() []stored.Message {
	return []stored.Message{
		{ID: 1, Role: chat.RoleUser, Content: "two snippets?"},
		{ID: 2, Role: chat.RoleAssistant, AnchorID: 1, RunID: 1, Status: chat.StatusSucceeded,
			Content: "First:\n\n```go\nvar xs []List<int>\n```\n\nThen:\n\n```sh\necho hi\n```\n"},
	}
}

// clipText returns what cmd sends to the terminal's clipboard as OSC 52, "" for nothing.
func clipText(cmd tea.Cmd) string {
	for _, msg := range execCmd(cmd, time.Second) {
		if s := fmt.Sprint(msg); fmt.Sprintf("%T", msg) == "tea.setClipboardMsg" {
			return s
		}
	}
	return ""
}

// y copies the selected message, and its notice (shown at once, for noticeLife) says whose
// it was and where the copy went: a message of yours is said to be yours, nothing of sending.
func TestCopySelectedMessage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name         string
		keys         []string
		text, notice string
	}{
		{"a reply", []string{"esc", "k", "k"}, "Answer **1**, in a paragraph.", "the reply handed to the terminal to copy (OSC 52) — tmux needs set-clipboard on"},
		{"your message", []string{"esc", "k"}, "question 2", "your message handed to the terminal to copy (OSC 52)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := pressKeys(loadedModel(t, storedExchanges(2), 80, 24), c.keys...)
			m, cmd := step(m, press("y"))
			if !strings.Contains(plain(m), c.notice) {
				t.Errorf("no notice of what was copied and where:\n%s", plain(m))
			}
			if msgs := execCmd(cmd, time.Second); len(msgs) != 1 || fmt.Sprint(msgs[0]) != c.text {
				t.Fatalf("y produced %v, want %q for the clipboard", msgs, c.text)
			}
		})
	}
}

// Y copies one code block of the selected reply, its source exactly, and the next on each
// press.
func TestCopyCodeCopiesOneBlock(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, codeReply(), 80, 24)
	m, _ = step(m, press("esc"))
	m, cmd := step(m, tea.KeyPressMsg{Code: 'y', ShiftedCode: 'Y', Text: "Y", Mod: tea.ModShift})
	if got := clipText(cmd); got != "var xs []List<int>\n" {
		t.Fatalf("Y copied %q", got)
	}
	if !strings.Contains(plain(m), "code block 1 of 2 (Y again: the next) handed to the terminal to copy (OSC 52)") {
		t.Fatalf("no notice:\n%s", plain(m))
	}
	_, cmd = step(m, tea.KeyPressMsg{Code: 'y', ShiftedCode: 'Y', Text: "Y", Mod: tea.ModShift})
	if got := clipText(cmd); got != "echo hi\n" {
		t.Fatalf("Y again copied %q", got)
	}
}

// /copy copies the last reply; a clipboard tool runs in a command and its outcome is said.
func TestCopyCommandUsesTheTool(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "clip")
	tool := filepath.Join(dir, "fakeclip")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\ncat > "+out+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	m := New(Options{Client: offlineClient(), Session: stored.Session{ID: "s1"}, Clipboard: &clipboard.Way{Tool: []string{tool}}})
	m, _ = step(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m, _ = step(m, sessionLoadedMsg{session: m.session, msgs: codeReply()})
	m = typeText(m, "/copy")
	m, cmd := step(m, press("enter"))
	if !strings.Contains(plain(m), "copying the last reply with") {
		t.Fatalf("no notice while copying:\n%s", plain(m))
	}
	m = runCmds(m, cmd)
	if b, _ := os.ReadFile(out); string(b) != codeReply()[1].Content {
		t.Fatalf("the tool got %q", b)
	}
	if !strings.Contains(strings.Join(strings.Fields(plain(m)), " "), "the last reply copied with "+tool) {
		t.Fatalf("no notice of the copy:\n%s", plain(m))
	}
}

// The mouse is the terminal's until ctrl+t captures it; the wheel's arrows scroll on an empty
// input meanwhile.
func TestMouseIsTheTerminalsByDefault(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, storedExchanges(30), 80, 20)
	if m.View().MouseMode != tea.MouseModeNone {
		t.Fatal("the mouse is captured by default")
	}
	m, _ = step(m, press("up"))
	if m.transcript.Following() || !m.input.Empty() {
		t.Fatalf("↑ on an empty input did not scroll (input %q)", m.input.Value())
	}
	m, _ = step(m, press("ctrl+t"))
	if m.View().MouseMode != tea.MouseModeCellMotion || !strings.Contains(plain(m), "mouse captured") {
		t.Fatalf("ctrl+t did not capture the mouse:\n%s", plain(m))
	}
	m, _ = step(m, press("ctrl+t"))
	if m.View().MouseMode != tea.MouseModeNone {
		t.Fatal("ctrl+t again did not give the mouse back")
	}
}
