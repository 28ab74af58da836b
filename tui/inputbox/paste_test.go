package inputbox

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestPasteLabel(t *testing.T) {
	for text, want := range map[string]string{
		bigDraft(1300):               "[pasted 1,300 lines]",
		bigDraft(12) + "\n":          "[pasted 12 lines]",
		strings.Repeat("é", 12345):   "[pasted 12,345 characters]",
		strings.Repeat("x", 1234567): "[pasted 1,234,567 characters]",
	} {
		if got := pasteLabel(text); got != want {
			t.Errorf("label %q, want %q", got, want)
		}
	}
}

// A paste whose lines end in CR (tmux's paste-buffer, many terminals) or CRLF collapses as one
// whose lines end in LF does, counted the same.
func TestPasteCountsCRAndCRLFLines(t *testing.T) {
	lf := strings.Repeat("short line\n", 12)
	for name, text := range map[string]string{
		"LF":   lf,
		"CR":   strings.ReplaceAll(lf, "\n", "\r"),
		"CRLF": strings.ReplaceAll(lf, "\n", "\r\n"),
	} {
		b := newBox(80)
		b, _ = b.Update(tea.PasteMsg{Content: text})
		if !b.HoldsPastes() {
			t.Errorf("%s: a paste of 12 lines is not collapsed", name)
			continue
		}
		if got := b.Pastes()[0].Label; got != "[pasted 12 lines]" {
			t.Errorf("%s: label %q, want [pasted 12 lines]", name, got)
		}
		if got := b.Value(); got != lf {
			t.Errorf("%s: the text held is %q, want its lines ended by LF", name, got)
		}
	}
}
