package markdown

import (
	"math"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// heldFrom holds back exactly the span the unfinished last line opens and does not close.
func TestHeldFrom(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ text, shown string }{
		{"plain words", "plain words"},
		{"some **bol", "some "},
		{"some **bold** and *it", "some **bold** and "},
		{"a `co", "a "},
		{"a `code` b", "a `code` b"},
		{"a ``x ` y", "a "},
		{"**outer *inner* go", ""},
		{"**a* b", ""},
		{"snake_case_name", "snake_case_name"},
		{"an _emph", "an "},
		{"2 * 3 = 6", "2 * 3 = 6"},
		{"* item", "* item"},
		{"ends in *", "ends in "},
		{"ends in **", "ends in "},
		{"escaped \\*star", "escaped \\*star"},
		{"done **line**\n", "done **line**\n"},
		{"first *open\nsecond **x", "first *open\nsecond "},
		{"first line\n", "first line\n"},
		{"```go", "```go"},
	} {
		if got := c.text[:heldFrom(c.text, false)]; got != c.shown {
			t.Errorf("%q shows %q, want %q", c.text, got, c.shown)
		}
	}
	if got := heldFrom("x := a * *b", true); got != len("x := a * *b") {
		t.Errorf("inside a code block %d held back", len("x := a * *b")-got)
	}
}

// Fed token by token through a growing Stream, as the screen samples every frame, no frame
// shows a marker (**, a lone *, a backtick, an emphasis underscore) that the final render does
// not: the final render of these replies shows none.
func TestGrowingReplyShowsNoRawMarkers(t *testing.T) {
	t.Parallel()
	replies := []string{
		"**parley's offline demo** answers *every* question with `canned` text, so __try__ _anything_.\n\n" +
			"- a **bold item** with `code`\n- and *one* more\n\nThat is **all**.",
		"Use `go test ./...` to run the tests; **never** skip them.\n\n1. *first*, then\n2. **second**\n",
		"A table:\n\n| a | b |\n|---|---|\n| **x** | `y` |\n\nand a quote:\n\n> *quoted* **words**\n",
	}
	markers := []string{"**", "*", "`", " _", "_ ", "__"}
	for _, reply := range replies {
		for _, width := range []int{30, 78} {
			var md, ref Renderer
			final := plainJoin(ref.full(reply, width, true))
			for _, m := range markers {
				if strings.Contains(final, m) {
					t.Fatalf("the final render shows %q; the reply cannot test it:\n%s", m, final)
				}
			}
			var s Stream
			s.SetGrowing(true)
			frames := 0
			for end := range tokenEnds(reply) {
				quota := math.MaxInt
				frame := plainJoin(s.Render(&md, nil, reply[:end], width, true, &quota))
				frames++
				for _, m := range markers {
					if strings.Contains(frame, m) {
						t.Fatalf("width %d, after %q: the frame shows %q:\n%s", width, reply[max(0, end-20):end], m, frame)
					}
				}
			}
			s.SetGrowing(false)
			quota := math.MaxInt
			if got := plainJoin(s.Render(&md, nil, reply, width, true, &quota)); got != final {
				t.Fatalf("width %d: finished, the reply shows\n%s\nwant\n%s", width, got, final)
			}
			if frames < 20 {
				t.Fatalf("only %d frames", frames)
			}
		}
	}
}

// tokenEnds yields the ends of a reply's tokens as a model streams them: a word or the space
// and punctuation between words, markers split off on their own as tokenizers often do.
func tokenEnds(reply string) func(func(int) bool) {
	return func(yield func(int) bool) {
		for i := 1; i <= len(reply); i++ {
			if i == len(reply) || reply[i] == ' ' || reply[i] == '*' || reply[i] == '`' || reply[i] == '_' || reply[i] == '\n' ||
				reply[i-1] == '*' || reply[i-1] == '`' {
				if !yield(i) {
					return
				}
			}
		}
	}
}

// plainJoin is rendered lines as text, without styles and trailing blank.
func plainJoin(lines []string) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(strings.ReplaceAll(ansi.Strip(l), "\u00a0", " "), " ")
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n ")
}

// Inline code that fits on a line moves to the next line whole rather than breaking inside
// itself, and keeps plain spaces (what is copied off the screen pastes into a shell); one
// wider than the line still breaks, losing nothing.
func TestInlineCodeBreaksOnlyWhenItMust(t *testing.T) {
	t.Parallel()
	var md Renderer
	got := plainJoin(md.Render("Run the whole suite with the command `go test -short -count=1 ./...` and wait.", 40, true))
	if !strings.Contains(got, " go test -short -count=1 ./... ") || strings.Contains(got, codeSpace) {
		t.Fatalf("the code span is broken, or its spaces are not spaces:\n%q", got)
	}
	long := "`" + strings.Repeat("word ", 12) + "end`"
	got = plainJoin(md.Render("see "+long, 30, true))
	if strings.Count(got, "word") != 12 || !strings.Contains(got, "end") || strings.Count(got, "\n") < 1 {
		t.Fatalf("a span wider than the line:\n%s", got)
	}
}
