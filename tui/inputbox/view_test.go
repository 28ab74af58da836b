package inputbox

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// TestGolden pins what the box draws, and where its cursor goes, at 40 columns without
// colors. Regenerate with go test ./tui/inputbox -update.
func TestGolden(t *testing.T) {
	states := map[string]func() Box{
		"placeholder": func() Box {
			b := newBox(40)
			b.Placeholder = "Ask anything — enter sends, ? lists keys"
			return b
		},
		"wrapped": func() Box {
			return typeText(newBox(40), "the stream keeps every word the model sends, and the screen shows them all")
		},
		"paste": func() Box {
			b := typeText(newBox(40), "see: ")
			b, _ = b.Update(tea.PasteMsg{Content: bigDraft(1300)})
			return typeText(b, " thanks")
		},
		"scrolled": func() Box {
			b := newBox(40)
			b.SetValue(bigDraft(12))
			return press(b, "up")
		},
		"blurred": func() Box {
			b := typeText(newBox(40), "no cursor")
			b.Blur()
			return b
		},
	}
	for name, build := range states {
		t.Run(name, func(t *testing.T) {
			b := build()
			out := ansi.Strip(b.View())
			if c := b.Cursor(); c != nil {
				out += fmt.Sprintf("\ncursor at column %d, row %d", c.X, c.Y)
			}
			golden.RequireEqual(t, strings.TrimRight(out, " ")+"\n")
		})
	}
}
