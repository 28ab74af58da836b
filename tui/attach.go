package tui

import (
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"parley/history"
	"parley/internal/attach"
	"parley/internal/sanitize"
)

// This file owns attachments on the chat screen: /file reads a text file for the next
// message, shown as a chip above the input until the message is sent, and what the line of
// chips says about the next message.

// attachedMsg carries a file read by /file, or why it was refused.
type attachedMsg struct {
	file attach.File
	err  error
}

// fileCommand is /file: with a path it attaches the file to the next message; alone it drops
// what is attached.
func (m *Model) fileCommand(path string) tea.Cmd {
	if path == "" {
		if len(m.next.files) == 0 {
			m.setNotice("nothing attached; /file PATH attaches a text file to the next message", false)
		} else {
			m.next.files = nil
			m.setNotice("attachments dropped", false)
			return m.storeDraftFiles()
		}
		return nil
	}
	limit := m.start.attachLimits
	return func() tea.Msg {
		f, err := attach.Read(expandHome(path), limit)
		f.Path = path
		return attachedMsg{file: f, err: err}
	}
}

// expandHome puts the home directory in place of a leading ~/, as a shell would.
func expandHome(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return path
}

// handleAttached adds a file read by /file to the next message, or says why it was refused.
func (m *Model) handleAttached(msg attachedMsg) tea.Cmd {
	if msg.err != nil {
		m.setNotice(sanitize.String(msg.err.Error()), true)
		return nil
	}
	m.next.files = append(m.next.files, msg.file)
	m.setNotice("attached "+sanitize.String(msg.file.Path)+" to the next message", false)
	return m.storeDraftFiles()
}

// storeDraftFiles stores the files attached to the next message with the session's draft, so
// that they survive a quit like the text.
func (m *Model) storeDraftFiles() tea.Cmd {
	if m.db == nil {
		return nil
	}
	db, id, files := m.db, m.session.ID, toDraftFiles(m.next.files)
	return func() tea.Msg {
		if err := db.SetDraftFiles(id, files); err != nil {
			return noticeMsg{text: draftNotStored + err.Error(), err: true}
		}
		return draftStoredMsg{}
	}
}

func toDraftFiles(files []attach.File) []history.DraftFile {
	out := make([]history.DraftFile, len(files))
	for i, f := range files {
		out[i] = history.DraftFile{Path: f.Path, Text: f.Text}
	}
	return out
}

func fromDraftFiles(files []history.DraftFile) []attach.File {
	var out []attach.File
	for _, f := range files {
		out = append(out, attach.File{Path: f.Path, Text: f.Text})
	}
	return out
}

// nextView is the line above the input that says what goes with the next message: the edit
// it is, and the files attached. Empty when there is nothing to say.
func (m *Model) nextView() string {
	st := m.styles
	var parts []string
	if m.next.edit != 0 {
		parts = append(parts, st.Warn.Render("editing your message · "+m.keys.Chat.Cancel.Help().Key+" abandons"))
	}
	for _, f := range m.next.files {
		parts = append(parts, st.HeaderState.Render(" "+sanitize.String(f.Path)+" · "+attach.Size(int64(len(f.Text)))+" "))
	}
	if len(parts) == 0 {
		return ""
	}
	if len(m.next.files) > 0 {
		parts = append(parts, st.Muted.Render("/file drops"))
	}
	return ansi.Truncate(strings.Join(parts, " "), m.width, "…")
}

// nextHeight is the height of nextView: one line, or none.
func (m *Model) nextHeight() int {
	if m.next.edit == 0 && len(m.next.files) == 0 {
		return 0
	}
	return 1
}
