package printmode

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"parley/internal/markdown"
)

// The answer's markdown on a terminal: rendered as it streams, each block once, and the
// whole the same as one render of the complete text.

func TestRenderedMarkdownStreamsBlocksOnce(t *testing.T) {
	doc := "# Quokkas\n\nThey live on **Rottnest Island**.\n\n- small\n- cheerful\n\n```go\nfmt.Println(\"hi\")\n```\n\nThe end."
	var streamed bytes.Buffer
	r := &rendered{width: 60}
	for i := 0; i < len(doc); i += 7 {
		r.add(&streamed, doc[i:min(i+7, len(doc))])
		if i > len(doc)/2 && !strings.Contains(streamed.String(), "Quokkas") {
			t.Fatalf("half the answer in, its first blocks are not written: %q", streamed.String())
		}
	}
	r.end(&streamed)
	// One render of the whole document, without cuts, is what the blocks glue into.
	var whole bytes.Buffer
	for _, l := range (&markdown.Renderer{}).Render(doc, 60, true) {
		whole.WriteString(trimPadding(l) + "\n")
	}
	if want := strings.Trim(whole.String(), "\n") + "\n"; streamed.String() != want {
		t.Fatalf("streamed in pieces:\n%q\nrendered whole:\n%q", streamed.String(), want)
	}
	text := ansi.Strip(streamed.String())
	for _, want := range []string{"Rottnest Island", "• small", `fmt.Println("hi")`, "The end."} {
		if !strings.Contains(text, want) {
			t.Errorf("the render lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "**") || strings.Contains(text, "```") {
		t.Errorf("markdown shows raw:\n%s", text)
	}
	for _, l := range strings.Split(text, "\n") {
		if strings.HasSuffix(l, " ") {
			t.Errorf("a line keeps its padding: %q", l)
		}
	}
}

func TestTrimPaddingClosesWhatItCuts(t *testing.T) {
	for in, want := range map[string]string{
		"plain   ": "plain",
		"\x1b[1mbold\x1b[m\x1b[38;5;252m  \x1b[m": "\x1b[1mbold\x1b[m",
		"\x1b[38;5;252mtext   ":                   "\x1b[38;5;252mtext",
		"":                                        "",
	} {
		if got := trimPadding(in); got != want {
			t.Errorf("trimPadding(%q) = %q, want %q", in, got, want)
		}
	}
}
