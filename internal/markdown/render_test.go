package markdown

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// TestGolden pins how replies render at 60 columns, cut in chunks at every safe boundary and
// glued, as a terminal without colors shows them. Regenerate with go test ./internal/markdown
// -update.
func TestGolden(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"paragraphs", "headings", "lists", "fences", "table", "quotes"} {
		t.Run(name, func(t *testing.T) {
			s := everyBoundary()
			var md Renderer
			lines := renderAll(&s, &md, mdCorpus[name], 60)
			for i, l := range lines {
				lines[i] = strings.TrimRight(ansi.Strip(l), " ")
			}
			golden.RequireEqual(t, strings.Join(lines, "\n")+"\n")
		})
	}
}
