package tui

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"

	"parley/history/stored"
	"parley/internal/attach"
	"parley/internal/chat"
	"parley/internal/sanitize"
	"parley/tui/inputbox"
)

// This file owns sending: what the input holds goes out with its attachments, as a new
// message or, after e on one of the operator's messages, as an edit of it. An edit
// supersedes that message's turn and everything after it, like regenerating, and sends the
// new text as a new operator message; the old turn stays readable as a version.

// editedMsg reports an edit stored by history, or why it was not.
type editedMsg struct {
	sessionGen int
	text       string
	images     []chat.Image
	modelName  string
	rcpt       stored.Receipt
	system     stored.Message // the system prompt stored before it, ID 0 when none was
	err        error
}

// sendInput sends text typed in the input with the files attached to it: as an edit when
// one is open, else as a new message.
func (m *Model) sendInput(text string) tea.Cmd {
	images := attach.Images(m.next.files)
	text = attach.Compose(text, "", m.next.files)
	var files tea.Cmd
	if len(m.next.files) > 0 {
		m.next.files = nil
		files = m.storeDraftFiles(m.next.files) // they go with the message: no longer the draft's
	}
	if edit := m.next.edit; edit != 0 {
		m.next.edit, m.next.beforeEdit = 0, ""
		return tea.Batch(m.sendEdit(edit, text, images), files)
	}
	return tea.Batch(m.send(text, images), files)
}

// startEdit puts operator message id's text in the input, to be sent in its place (e).
func (m *Model) startEdit(id int64) {
	if !m.transcript.IsOperator(id) {
		m.setNotice("select one of your messages to edit it", true)
		return
	}
	if m.next.edit == 0 {
		m.next.beforeEdit = m.input.Value()
	}
	m.next.edit = id
	m.focus.toInput(&m.input, m.transcript)
	text := m.transcript.Text(id)
	var held []inputbox.Held
	for _, p := range m.transcript.Collapsed(id) {
		held = append(held, inputbox.Held{Start: p.Start, End: p.End, Label: p.Label})
	}
	m.input.SetValueHolding(text, held)
	m.setNotice(m.keys.Input.Send.Help().Key+" sends it in place of the old message, which stays as a version", false)
}

// abandonEdit gives the input back as it was before the edit began (esc).
func (m *Model) abandonEdit() {
	m.input.SetValue(m.next.beforeEdit)
	m.next.edit, m.next.beforeEdit = 0, ""
	m.setNotice("edit abandoned", false)
}

// sendEdit stores text as an edit of operator message id, after the system prompt of the
// next messages, and starts or queues its run. Like a posted message it holds back others
// until it is stored.
func (m *Model) sendEdit(id int64, text string, images []chat.Image) tea.Cmd {
	if m.posting {
		m.input.SetValue(text)
		m.next.edit = id
		m.setNotice("a message is being stored; send the edit again in a moment", true)
		return nil
	}
	m.tier2.Disarm()
	m.posting = true
	db, sessionID, modelName, sessionGen, queued, system := m.db, m.session.ID, m.modelName(), m.sessionGen, m.busy(), m.next.system
	return func() tea.Msg {
		sys, err := postSystem(db, sessionID, system)
		if err != nil {
			return editedMsg{sessionGen: sessionGen, text: text, err: err}
		}
		rcpt, err := db.Edit(id, text, modelName, queued, images...)
		if err != nil {
			return editedMsg{sessionGen: sessionGen, text: text, err: err}
		}
		// The edit carries the images of the message it replaces: read back to show them.
		sent, err := db.Message(rcpt.AnchorID)
		return editedMsg{sessionGen: sessionGen, text: text, images: sent.Images, modelName: modelName, rcpt: rcpt, system: sys, err: err}
	}
}

// handleEdited shows a stored edit: the superseded turn leaves the transcript, the new
// message and its reply join it, and its run starts or queues.
func (m *Model) handleEdited(msg editedMsg) tea.Cmd {
	m.posting = false
	if msg.sessionGen != m.sessionGen {
		// The session was left meanwhile; its run must not wait forever.
		if msg.err == nil {
			return tea.Batch(cancelQueuedCmd(m.db, []stored.Receipt{msg.rcpt}), m.postNext())
		}
		return m.postNext()
	}
	if msg.err != nil {
		if m.input.Empty() {
			m.input.SetValue(msg.text)
		}
		m.setNotice("could not send the edit: "+msg.err.Error(), true)
		return m.postNext()
	}
	rcpt := msg.rcpt
	drop := m.supersede(rcpt.Superseded)
	if msg.system.ID != 0 {
		m.transcript.Append(msg.system)
	}
	m.transcript.Append(stored.Message{ID: rcpt.AnchorID, SessionID: m.session.ID, Role: chat.RoleUser, Content: msg.text,
		Images: msg.images})
	m.transcript.Append(queuedReply(rcpt, m.session.ID, msg.modelName))
	m.transcript.GotoBottom()
	var start tea.Cmd
	if m.busy() {
		m.queue = append(m.queue, rcpt)
	} else {
		start = m.startRun(rcpt)
	}
	return tea.Batch(cancelQueuedCmd(m.db, drop), start, m.postNext())
}

// This part owns writing the message in the operator's editor: the input goes to a file,
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
		m.focus.toInput(&m.input, m.transcript)
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
