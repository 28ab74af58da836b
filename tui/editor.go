package tui

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"

	"parley/internal/sanitize"
)

// This file owns writing the message in the operator's editor: the input goes to a file,
// $VISUAL or $EDITOR (else nano, else vi) opens it with the screen handed over, and what was
// saved comes back to the input.

// editorDoneMsg carries what the editor saved, or why it could not run.
type editorDoneMsg struct {
	text string
	err  error
}

// editorCommand returns the command that edits path: $VISUAL, else $EDITOR, else nano, else
// vi. Like git, it runs the variable through the shell, so that "code --wait" works.
func editorCommand(getenv func(string) string, lookPath func(string) (string, error), path string) (*exec.Cmd, error) {
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if e := strings.TrimSpace(getenv(v)); e != "" {
			return exec.Command("sh", "-c", e+` "$1"`, "parley-editor", path), nil
		}
	}
	for _, e := range []string{"nano", "vi"} {
		if p, err := lookPath(e); err == nil {
			return exec.Command(p, path), nil
		}
	}
	return nil, errors.New("no editor found: set $EDITOR (for example export EDITOR=vim)")
}

// openEditor hands the screen to the editor on what the input holds (ctrl+x).
func (m *Model) openEditor() tea.Cmd {
	text := m.input.Value()
	return func() tea.Msg {
		f, err := os.CreateTemp("", "parley-*.md")
		if err != nil {
			return editorDoneMsg{err: err}
		}
		path := f.Name()
		_, err = f.WriteString(text)
		if err = errors.Join(err, f.Close()); err != nil {
			os.Remove(path)
			return editorDoneMsg{err: err}
		}
		cmd, err := editorCommand(os.Getenv, exec.LookPath, path)
		if err != nil {
			os.Remove(path)
			return editorDoneMsg{err: err}
		}
		// What the editor says on stderr would stay on the terminal after parley quits, under
		// the screen: its last line goes with the failure instead.
		said := new(lastLine)
		cmd.Stderr = said
		return tea.ExecProcess(cmd, func(err error) tea.Msg {
			defer os.Remove(path)
			if err != nil {
				if l := said.String(); l != "" {
					err = fmt.Errorf("%w (%s)", err, l)
				}
				return editorDoneMsg{err: err}
			}
			b, err := os.ReadFile(path)
			return editorDoneMsg{text: string(b), err: err}
		})()
	}
}

// handleEditorDone puts what the editor saved in the input; an empty save leaves the input
// as it was.
func (m *Model) handleEditorDone(msg editorDoneMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		m.setNotice("the editor failed: "+sanitize.String(msg.err.Error()), true)
	case strings.TrimSpace(msg.text) == "":
		m.setNotice("the editor saved nothing; the input is as it was", false)
	default:
		m.focusInput()
		m.input.SetValue(strings.TrimRight(msg.text, "\n"))
	}
	return nil
}

// lastLine keeps the last line written to it that holds text, at most a few hundred bytes of
// it.
type lastLine struct{ line, partial []byte }

func (l *lastLine) Write(b []byte) (int, error) {
	for _, c := range b {
		if c == '\n' || c == '\r' {
			if len(bytes.TrimSpace(l.partial)) > 0 {
				l.line = append(l.line[:0], l.partial...)
			}
			l.partial = l.partial[:0]
		} else if len(l.partial) < 400 {
			l.partial = append(l.partial, c)
		}
	}
	return len(b), nil
}

// String is the last line that holds text, the one not yet ended too.
func (l *lastLine) String() string {
	if p := bytes.TrimSpace(l.partial); len(p) > 0 {
		return string(p)
	}
	return strings.TrimSpace(string(l.line))
}
