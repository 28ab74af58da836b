package markdown

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"parley/internal/demo"
	"parley/internal/markdown/markdowntest"
)

// mdCorpus holds documents with the constructs that make gluing renders risky: blocks that
// continue across blank lines, fences holding blank lines, lists that turn loose, tables.
var mdCorpus = map[string]string{
	"paragraphs": "First paragraph with **bold**, _emphasis_ and `code` that runs long enough to wrap at the narrow width.\n\nSecond paragraph.\n\nThird one, ending without a newline",
	"headings":   "# Title\n\nIntro text.\n\n## Section\n\nBody.\n\nSetext heading\n==============\n\nMore.\n\n### Deep\n\nEnd.\n",
	"lists":      "Steps:\n\n- one\n- two\n\n- three after a blank line\n  continued\n\n  a second paragraph in the item\n\nAfter the list.\n\n1. first\n2. second\n\n3. third\n\n10) other style\n\nDone.\n",
	"lists after blocks": "# Head\n\n- after a heading\n- two\n\n> quote\n\n- after a quote\n\n- loose\n\n```\ncode\n```\n\n1. after code\n\n2. loose too\n\n" +
		"Para\n- interrupts it\n\n- and goes on\n\nText\n\n* star\n\n+ plus starts another\n\n- - -\n\n-\n\n- after an empty item\n\nend\n",
	"nested":         "- outer\n  - inner\n\n    inner paragraph\n\n  - inner two\n- outer two\n\nText.\n",
	"fences":         "Code:\n\n```go\nfunc main() {\n\n\tfmt.Println(\"x\")\n\n}\n```\n\nAfter.\n\n~~~~\n```\nnot closed by this\n\n~~~~\n\nEnd.\n",
	"quotes":         "> quoted\n> more\n\n> another quote\n\nplain\n\n> a\n\n> b\n",
	"table":          "| a | b |\n|---|---|\n| 1 | 2 |\n\nText between.\n\nx | y\n--|--\n3 | 4\n\nend\n",
	"rules":          "Above\n\n---\n\nBelow\n\n***\n\n* star list\n* more\n\nfin\n",
	"indented":       "Para.\n\n    indented code\n\n    still code\n\nback to text\n",
	"html":           "<div>\n\nhtml block\n\n</div>\n\ntext\n",
	"refs":           "See [the docs][d].\n\nMore text.\n\n[d]: http://example.com\n",
	"emphasis":       "*starts with emphasis* and goes on.\n\n**bold start** too.\n\n+ plus list\n+ item\n\nend\n",
	"code then text": "Run:\n\n```\nmake\n```\nright after the fence\n\n```\nagain\n```\n\n## Heading after code\n\n```\nlast\n```\n",
	"long": strings.Repeat("A paragraph of streamed words, long enough to wrap over two lines at this width.\n\n"+
		"- a list item\n- another\n\n```sh\necho hi\n```\n\n", 4),
}

// full renders text in one piece, without the surrounding blank lines: what gluing chunks
// must equal.
func (md *Renderer) full(text string, width int, dark bool) []string {
	return markdowntest.TrimBlank(md.Render(text, width, dark))
}

func init() {
	mdCorpus["demo reply"] = demo.Reply([]demo.Message{{Role: "user", Content: "what are the keys?"}})
}

// renderAll renders text with s, every chunk of it, without a head and without a quota.
func renderAll(s *Stream, md *Renderer, text string, width int) []string {
	quota := math.MaxInt
	s.Render(md, nil, text, width, true, &quota)
	s.RenderRange(md, text, 0, math.MaxInt, &quota)
	return s.Render(md, nil, text, width, true, &quota)
}

// everyBoundary cuts a chunk at every safe boundary, and never anywhere else.
func everyBoundary() Stream { return Stream{min: 1, max: math.MaxInt} }

// The glued render of a growing reply equals a full render of the same text at every step,
// at several widths, with a cut at every safe boundary.
func TestStreamingMarkdownMatchesFullRender(t *testing.T) {
	for name, doc := range mdCorpus {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, width := range []int{30, 78} {
				s := everyBoundary()
				var md, ref Renderer
				for _, end := range steps(doc) {
					text := doc[:end]
					got := renderAll(&s, &md, text, width)
					want := ref.full(text, width, true)
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Fatalf("width %d, after %d bytes %q:\nglued:\n%s\nfull:\n%s",
							width, end, text[max(0, end-40):], strings.Join(got, "\n"), strings.Join(want, "\n"))
					}
				}
			}
		})
	}
}

// steps returns the lengths at which a streamed doc is rendered: after every few bytes (of a
// short doc), at every line end, and at its end; under the race detector at every sparser-th
// of them.
func steps(doc string) []int {
	var out []int
	for i, lineEnds := 1, 0; i <= len(doc); i++ {
		lineEnd := doc[i-1] == '\n'
		if lineEnd {
			lineEnds++
		}
		if (i%(7*sparser) == 0 && len(doc) < 500) || (lineEnd && lineEnds%sparser == 0) || i == len(doc) {
			out = append(out, i)
		}
	}
	return out
}

// Gluing moves the stable prefix forward, so only the tail is rendered per frame.
func TestStreamingMarkdownKeepsStablePrefix(t *testing.T) {
	t.Parallel()
	s := everyBoundary()
	var md Renderer
	doc := mdCorpus["long"]
	renderAll(&s, &md, doc, 78)
	if s.off || s.stableEnd == 0 {
		t.Fatalf("no stable prefix: off=%v end=%d", s.off, s.stableEnd)
	}
	if tail := len(doc) - s.stableEnd; tail > 200 {
		t.Fatalf("tail of %d bytes left to render per frame", tail)
	}
	// Text that gluing cannot handle turns it off.
	h := everyBoundary()
	renderAll(&h, &md, mdCorpus["html"], 78)
	if !h.off {
		t.Fatal("an HTML block should turn gluing off")
	}
	// A width change starts over.
	renderAll(&s, &md, doc, 40)
	if s.width != 40 || s.stableEnd == 0 {
		t.Fatal("width change not handled")
	}
}

// A long generated reply (paragraphs, lists, fenced code, as the demo endpoint streams them)
// glues like a full render at every line end (every sparser-th under the race detector), and
// the stable prefix keeps up with it.
func TestStreamingMarkdownMatchesFullRenderOnALongReply(t *testing.T) {
	t.Parallel()
	doc := strings.Join(markdowntest.DemoReply(t, 1500, false), "")
	s := everyBoundary()
	var md, ref Renderer
	for i, lineEnds := 0, 0; i < len(doc); i++ {
		if doc[i] != '\n' && i != len(doc)-1 {
			continue
		}
		if lineEnds++; lineEnds%sparser != 0 && i != len(doc)-1 {
			continue
		}
		text := doc[:i+1]
		got := renderAll(&s, &md, text, 78)
		if want := ref.full(text, 78, true); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("after %d bytes %q:\nglued:\n%s\nfull:\n%s", i+1, text[max(0, i-40):i+1],
				strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	if s.off || len(doc)-s.stableEnd > 1000 {
		t.Fatalf("stable prefix fell behind: off=%v, %d of %d bytes left to render per frame", s.off, len(doc)-s.stableEnd, len(doc))
	}
}

// A code block longer than a chunk is cut at line starts, closed and opened again: it reads as
// one block (only its highlighting restarts at a cut), and a reply rendered while it streamed
// (every 97 bytes; every sparser × 97 under the race detector) is cut where the same reply
// rendered whole is. (Text is compared without its colors: chroma picks between two equally
// close terminal colors in map order, so a comment's color can differ from one render to the
// next.)
func TestLongCodeBlockIsCutSeamlessly(t *testing.T) {
	t.Parallel()
	doc := strings.Join(markdowntest.DemoReply(t, 3000, true), "")
	var whole, streamed Stream
	var md, ref Renderer
	got := ansi.Strip(strings.Join(renderAll(&whole, &md, doc, 90), "\n"))
	want := ansi.Strip(strings.Join(ref.full(doc, 90, true), "\n"))
	if len(whole.chunks) < 3 {
		t.Fatalf("a %d-byte code block was cut in %d chunks", len(doc), len(whole.chunks))
	}
	if got != want {
		t.Fatalf("the glued code block reads otherwise than one render:\nglued:\n%s\nwhole:\n%s", got, want)
	}
	for i := 0; i < len(doc); i += 97 * sparser {
		renderAll(&streamed, &md, doc[:i], 90)
	}
	again := ansi.Strip(strings.Join(renderAll(&streamed, &md, doc, 90), "\n"))
	cuts := func(s Stream) (out []int) {
		for _, c := range s.chunks {
			out = append(out, c.end)
		}
		return out
	}
	if !slices.Equal(cuts(streamed), cuts(whole)) || again != got {
		t.Fatalf("rendered while it streamed, the reply is cut at %v, rendered whole at %v", cuts(streamed), cuts(whole))
	}
}

func TestCodeBlocksKeepTabIndentation(t *testing.T) {
	t.Parallel()
	var md Renderer
	lines := md.full("```go\nfunc f() {\n\treturn\n}\n```\n", 60, true)
	var fn, body string
	for _, l := range lines {
		plain := ansi.Strip(l)
		if strings.Contains(plain, "func f()") {
			fn = plain
		}
		if strings.Contains(plain, "return") {
			body = plain
		}
	}
	// Measured after the frame's bar.
	indent := func(s string) int {
		_, code, _ := strings.Cut(s, "│")
		return len(code) - len(strings.TrimLeft(code, " "))
	}
	if fn == "" || body == "" || indent(body) != indent(fn)+4 {
		t.Fatalf("the tab-indented line is not indented under its function:\n%q\n%q", fn, body)
	}
}
