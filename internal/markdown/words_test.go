package markdown

import (
	"strings"
	"testing"

	"parley/internal/markdown/markdowntest"

	"github.com/charmbracelet/x/ansi"
)

// The corpus in testdata/corpus holds replies as models write them, with generics, templates,
// comparison operators and HTML outside code: every word of each must be on screen, at every
// width, rendered whole and streamed.

// corpusWidths are the screen widths the corpus is read at.
var corpusWidths = []int{40, 80, 120, 200}

// readCorpus returns the corpus's documents by file name.
func readCorpus(t testing.TB) map[string]string { return markdowntest.Corpus(t, "testdata/corpus") }

// missingWords returns the words of src that the rendered lines do not show.
func missingWords(src string, lines []string) []string {
	return markdowntest.Unseen(src, ansi.Strip(strings.Join(lines, "\n")))
}

func TestEveryWordOfTheCorpusIsShown(t *testing.T) {
	t.Parallel()
	total := 0
	for name, doc := range readCorpus(t) {
		total += len(markdowntest.Words(doc))
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, width := range corpusWidths {
				var md Renderer
				if miss := missingWords(doc, md.Render(doc, width, true)); len(miss) > 0 {
					t.Errorf("at %d columns, whole: missing %q", width, miss)
				}
				// Streamed in pieces of 5 bytes (5 × sparser under the race detector), every chunk rendered as
				// the screen would.
				var s Stream
				var lines []string
				for end := 5; ; end += 5 * sparser {
					lines = renderAll(&s, &md, doc[:min(end, len(doc))], width)
					if end >= len(doc) {
						break
					}
				}
				if miss := missingWords(doc, lines); len(miss) > 0 {
					t.Errorf("at %d columns, streamed: missing %q", width, miss)
				}
			}
		})
	}
	t.Logf("%d words checked at %d widths, whole and streamed", total, len(corpusWidths))
}

// The corpus glued from chunks cut at every safe boundary reads as one render of the whole,
// at every step of its stream and every width. Text is compared without its colors: chroma
// picks between two equally close terminal colors for an HTML comment in map order.
func TestCorpusGluesLikeAWholeRender(t *testing.T) {
	for name, doc := range readCorpus(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, width := range corpusWidths {
				s := everyBoundary()
				var md, ref Renderer
				for _, end := range steps(doc) {
					got := ansi.Strip(strings.Join(renderAll(&s, &md, doc[:end], width), "\n"))
					want := ansi.Strip(strings.Join(ref.full(doc[:end], width, true), "\n"))
					if got != want {
						t.Fatalf("at %d columns, after %d bytes:\nglued:\n%s\nwhole:\n%s", width, end, got, want)
					}
				}
			}
		})
	}
}

// Raw HTML is shown as it was written, and only raw HTML is escaped: code keeps its text.
func TestRawHTMLShowsAsWritten(t *testing.T) {
	t.Parallel()
	var md Renderer
	for src, want := range map[string]string{
		"a List<String> here":             "a List<String> here",
		"x<y>z and <b>x</b>":              "x<y>z and <b>x</b>",
		"<details>\n<summary>S</summary>": "╭─ html\n  │ <details>\n  │ <summary>S</summary>",
		"in `List<T>` code":               "in \u00a0List<T>\u00a0 code",
		"see <https://example.com>":       "see https://example.com",
		"text\n<div>\nblock\n</div>":      "text\n\n  ╭─ html\n  │ <div>\n  │ block\n  │ </div>",
	} {
		got := strings.TrimSpace(plainText(md.Render(src, 80, true)))
		if got != want {
			t.Errorf("%q shows\n%q, want\n%q", src, got, want)
		}
	}
	if got := prepare("no tags at all"); got != "no tags at all" {
		t.Fatalf("text without < changed: %q", got)
	}
	var md2 Renderer
	if got := plainText(md2.Render("```html\n<b>x</b>\n```\n", 80, true)); !strings.Contains(got, "<b>x</b>") || strings.Contains(got, `\<`) {
		t.Fatalf("code changed by escaping:\n%s", got)
	}
}

// plainText is rendered lines without styles or trailing blanks.
func plainText(lines []string) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(ansi.Strip(l), " ")
	}
	return strings.Join(out, "\n")
}
