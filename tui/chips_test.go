package tui

import (
	"strings"
	"testing"

	"parley/history/stored"
	"parley/internal/attach"
	"parley/internal/chat"
)

// A message with a file attached shows the file as one line, its path and size, in the
// transcript and in the input when it is edited; ctrl+o shows it in full, and the edit sends it
// whole.
func TestAttachedFilesShowAsChips(t *testing.T) {
	t.Parallel()
	file := attach.File{Path: "main.go", Text: strings.Repeat("fmt.Println(\"a line of the file\")\n", 60)}
	msgs := []stored.Message{
		{ID: 1, Role: chat.RoleUser, Content: attach.Compose("review this", "", []attach.File{file})},
		{ID: 2, Role: chat.RoleAssistant, AnchorID: 1, RunID: 1, Status: chat.StatusSucceeded, Content: "Looks fine."},
	}
	m := loadedModel(t, msgs, 80, 30)
	screen := plain(m)
	if !strings.Contains(screen, "review this") || !strings.Contains(screen, "[main.go · 2.0 KiB]") || strings.Contains(screen, "a line of the file") {
		t.Fatalf("the file is not a chip:\n%s", screen)
	}
	m, _ = step(m, press("ctrl+o"))
	if !strings.Contains(plain(m), "a line of the file") {
		t.Fatalf("ctrl+o did not show the file:\n%s", plain(m))
	}
	m = pressKeys(m, "ctrl+o", "esc", "k", "e")
	if m.input.Value() != msgs[0].Content {
		t.Fatalf("the edit holds %q", m.input.Value())
	}
	if in := m.input.View(); !strings.Contains(in, "[main.go · 2.0 KiB]") || strings.Contains(in, "a line of the file") {
		t.Fatalf("the edit box shows:\n%s", in)
	}
}
