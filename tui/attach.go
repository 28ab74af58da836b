package tui

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"parley/history/stored"
	"parley/internal/attach"
	"parley/internal/sanitize"
	"parley/tui/clipboard"
)

// This file owns attachments on the chat screen: /file reads a text file for the next
// message, shown as a chip above the input until the message is sent, and what the line of
// chips says about the next message.

// attachedMsg carries a file read by /file, or why it was refused.
type attachedMsg struct {
	file attach.File
	err  error
	// typed is what asked for the file (the /file line, the path dropped): a failure gives it
	// back to an empty input, to mend.
	typed string
}

// fileCommand is /file: with a path it attaches the file to the next message; alone it drops
// what is attached.
func (m *Model) fileCommand(path, typed string) tea.Cmd {
	if path == "" {
		if len(m.next.files) == 0 {
			m.setNotice("nothing attached; /file PATH attaches a text file or an image to the next message", false)
		} else {
			m.next.files = nil
			m.setNotice("attachments dropped", false)
			return m.storeDraftFiles(m.next.files)
		}
		return nil
	}
	limit := m.start.attachLimits
	return func() tea.Msg {
		f, err := attach.Read(expandHome(path), limit)
		f.Path = path
		return attachedMsg{file: f, err: err, typed: typed}
	}
}

// readClipboardImage reads the image on the system clipboard; a variable so tests give one.
var readClipboardImage = func(ctx context.Context) ([]byte, error) {
	return clipboard.Image(ctx, os.Getenv, exec.LookPath)
}

// pasteImage attaches the image on the system clipboard to the next message (ctrl+v), as
// /file attaches one from a file, up to limit bytes.
func pasteImage(limit int64) tea.Cmd {
	return func() tea.Msg {
		b, err := readClipboardImage(context.Background())
		if err != nil {
			return attachedMsg{err: fmt.Errorf("nothing attached: %w", err)}
		}
		im, err := attach.PrepareImage("clipboard", b, limit)
		return attachedMsg{file: attach.File{Path: "clipboard", Image: &im}, err: err}
	}
}

// droppedImage is the image file a paste names, when the paste is nothing but a path to one:
// what a terminal pastes when a file is dropped on it (quoted, with escaped spaces, or as a
// file:// URL). ok is false for anything else, which is pasted as text.
func droppedImage(paste string) (path string, ok bool) {
	p := strings.TrimSpace(paste)
	if p == "" || strings.ContainsAny(p, "\n\r") {
		return "", false
	}
	if len(p) > 1 && (p[0] == '\'' || p[0] == '"') && p[len(p)-1] == p[0] {
		p = p[1 : len(p)-1]
	}
	if rest, ok := strings.CutPrefix(p, "file://"); ok {
		if u, err := url.PathUnescape(rest); err == nil {
			p = u
		}
	} else {
		p = strings.ReplaceAll(p, "\\ ", " ")
	}
	p = expandHome(p)
	f, err := os.Open(p)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return "", false
	}
	head := make([]byte, 12)
	n, _ := io.ReadFull(f, head)
	if _, isImage := attach.ImageType(head[:n]); !isImage {
		return "", false
	}
	return p, true
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
		if msg.typed != "" && m.input.Empty() {
			m.input.SetValue(msg.typed)
		}
		return nil
	}
	m.next.files = append(m.next.files, msg.file)
	note := "attached " + sanitize.String(msg.file.Path) + " to the next message"
	if im := msg.file.Image; im != nil && im.Scaled() != "" {
		note += " (" + sanitize.String(im.Scaled()) + ")"
	}
	m.setNotice(note, false)
	return m.storeDraftFiles(m.next.files)
}

// storeDraftFiles stores the files attached to the next message with the session's draft, so
// that they survive a quit like the text.
func (s *sessionState) storeDraftFiles(files []attach.File) tea.Cmd {
	if s.db == nil {
		return nil
	}
	db, id, stored := s.db, s.session.ID, toDraftFiles(files)
	return func() tea.Msg {
		if err := db.SetDraftFiles(id, stored); err != nil {
			return noticeMsg{text: draftNotStored + err.Error(), err: true}
		}
		return draftStoredMsg{}
	}
}

func toDraftFiles(files []attach.File) []stored.DraftFile {
	out := make([]stored.DraftFile, len(files))
	for i, f := range files {
		out[i] = stored.DraftFile{Path: f.Path, Text: f.Text}
		if f.Image != nil {
			im := f.Image.Image
			out[i].Image, out[i].Data = &im, im.Data
		}
	}
	return out
}

func fromDraftFiles(files []stored.DraftFile) []attach.File {
	var out []attach.File
	for _, f := range files {
		file := attach.File{Path: f.Path, Text: f.Text}
		if f.Image != nil {
			im := *f.Image
			im.Data = f.Data
			file.Image = &attach.Image{Image: im}
		}
		out = append(out, file)
	}
	return out
}

// nextView is the line above the input that says what goes with the next message: the edit
// it is, and the files attached. Empty when there is nothing to say.
func (n *nextMessage) nextView(st *theme, cancel string, width int) string {
	var parts []string
	if n.edit != 0 {
		parts = append(parts, st.Warn.Render("editing your message · "+cancel+" abandons"))
	}
	for _, f := range n.files {
		chip := " " + sanitize.String(f.Path) + " · " + attach.Size(int64(len(f.Text))) + " "
		if f.Image != nil {
			chip = " " + sanitize.String(attach.Chip(f.Image.Image)) + " "
		}
		parts = append(parts, st.HeaderState.Render(chip))
	}
	if len(parts) == 0 {
		return ""
	}
	if len(n.files) > 0 {
		parts = append(parts, st.Muted.Render("/file drops"))
	}
	return ansi.Truncate(strings.Join(parts, " "), width, "…")
}

// nextHeight is the height of nextView: one line, or none.
func (n *nextMessage) nextHeight() int {
	if n.edit == 0 && len(n.files) == 0 {
		return 0
	}
	return 1
}
