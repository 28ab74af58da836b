package inputbox

import (
	"strings"
	"testing"
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
