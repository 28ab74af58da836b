package markdown

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// widest returns the width of the widest of lines, trailing blanks left out.
func widest(lines []string) int {
	w := 0
	for _, l := range lines {
		w = max(w, ansi.StringWidth(strings.TrimRight(ansi.Strip(l), " ")))
	}
	return w
}

// A table is as wide as its content, however wide the screen, and its columns stay aligned.
func TestTablesAreAsWideAsTheirContent(t *testing.T) {
	t.Parallel()
	doc := "| Name | Age | City |\n|---|:---:|--:|\n| **Kini** | 40 | New York |\n| Eli | 3 | `London` |\n"
	var md Renderer
	lines := md.Render(doc, 200, true)
	// "Kini" and "New York" are the widest cells: 2 of margin, then per column a space, the
	// cell and a space, and a │ between columns.
	want := 2 + (1 + len("Name") + 1) + 1 + (1 + len("Age") + 1) + 1 + (1 + len("New York") + 1)
	if got := widest(lines); got != want {
		t.Fatalf("the table is %d columns wide, want %d:\n%s", got, want, plainText(lines))
	}
	var bars []int
	for _, l := range lines {
		if p := strings.Index(ansi.Strip(l), "│"); p >= 0 {
			bars = append(bars, p)
		}
	}
	for _, b := range bars {
		if b != bars[0] {
			t.Fatalf("columns out of line:\n%s", plainText(lines))
		}
	}
	if len(bars) != 3 {
		t.Fatalf("%d rows, want 3:\n%s", len(bars), plainText(lines))
	}
}

// A wrapped list item hangs under its text, not under its bullet; a code block's lines that
// look like list items are left as they are.
func TestWrappedListItemsHang(t *testing.T) {
	t.Parallel()
	doc := "- a list item that is long enough to wrap across several lines at forty\n  - nested item that is long enough to wrap across lines here\n\n" +
		"10. ten item that is long enough to wrap across several lines\n\n```\n1. step one\nnot merged\n```\n"
	var md Renderer
	got := plainText(md.Render(doc, 40, true))
	for _, want := range []string{
		"  • a list item that is long enough to\n    wrap across several lines at forty\n",
		"    • nested item that is long enough\n      to wrap across lines here",
		"  10. ten item that is long enough to\n      wrap across several lines",
		"│ 1. step one\n  │ not merged",
	} {
		if !strings.Contains(got, want) {
			t.Fatalf("want\n%s\nin\n%s", want, got)
		}
	}
	if widest(md.Render(doc, 40, true)) > 38 {
		t.Fatalf("wider than the screen:\n%s", got)
	}
}

// A blockquote keeps its bar on every line it wraps to.
func TestQuotesKeepTheirBar(t *testing.T) {
	t.Parallel()
	doc := "> quoted text that is long enough to wrap across several lines at forty columns, with Result<T, E>\n>\n> more\n"
	var md Renderer
	n := 0
	for _, l := range strings.Split(strings.Trim(plainText(md.Render(doc, 40, true)), "\n"), "\n") {
		if !strings.HasPrefix(l, "  │") {
			t.Fatalf("a quote's line without its bar: %q", l)
		}
		n++
	}
	if n < 4 {
		t.Fatalf("the quote did not wrap: %d lines", n)
	}
}

// A code block shows its language above it, and a code line too long for the screen goes on
// on lines marked as its continuation.
func TestCodeBlocksAreLabelledAndMarkContinuations(t *testing.T) {
	t.Parallel()
	doc := "```go\nfunc main() { fmt.Println(\"a line of code that is much too long for forty columns\") }\n```\n"
	var md Renderer
	lines := md.Render(doc, 40, true)
	got := plainText(lines)
	if !strings.Contains(got, "  ╭─ go\n  │ func main()") {
		t.Fatalf("no framed label above the code:\n%s", got)
	}
	if strings.Count(got, "↪ ") < 1 || strings.Contains(strings.Join(lines, ""), "\x1b[48;5;203m↪") {
		t.Fatalf("continuations unmarked, or marked as chroma's errors:\n%s", got)
	}
	if strings.Contains(got, labelMark) {
		t.Fatalf("the label's mark shows:\n%s", got)
	}
}

// A reply's code blocks are found as written, without their fences or a list's indent.
func TestCodeBlocksAreFoundAsWritten(t *testing.T) {
	t.Parallel()
	text := "Intro\n\n```go\nfunc f() {\n\treturn\n}\n```\n\n- item\n\n  ~~~\n  indented <b>\n  ~~~\n\n```sh\nopen at the end"
	got := CodeBlocks(text)
	want := []CodeBlock{{"go", "func f() {\n\treturn\n}\n"}, {"", "indented <b>\n"}, {"sh", "open at the end"}}
	if len(got) != len(want) {
		t.Fatalf("%d blocks: %+v", len(got), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("block %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// fits counts what glamour draws as it is measured, wide characters included.
func TestFitsMeasuresLikeStringWidth(t *testing.T) {
	t.Parallel()
	for _, l := range []string{"plain ascii", "\x1b[38;5;252m• item\x1b[m", "─┼─ ↪ … “q”", "✅ done", "日本語のテキスト", "e\u0301t\u00e9", "👩‍👩‍👧‍👦 family"} {
		for w := 0; w < 20; w++ {
			if got, want := fits(l, w), ansi.StringWidth(l) <= w; got != want {
				t.Fatalf("fits(%q, %d) = %v, want %v", l, w, got, want)
			}
		}
	}
}

// A word longer than the line is broken, not cut, and in a quote its pieces keep the bar.
func TestLongWordsBreakInsideTheirQuote(t *testing.T) {
	t.Parallel()
	url := "https://example.com/" + strings.Repeat("a-very-long-path/", 6) + "end"
	var md Renderer
	got := plainText(md.Render("> see "+url+"\n", 40, true))
	var quoted []string
	for _, l := range strings.Split(strings.Trim(got, "\n"), "\n") {
		if !strings.HasPrefix(l, "  │ ") {
			t.Fatalf("a line of the quote without its bar: %q in\n%s", l, got)
		}
		quoted = append(quoted, strings.TrimPrefix(l, "  │ "))
	}
	if joined := strings.Join(quoted, ""); !strings.Contains(joined, url) {
		t.Fatalf("the URL is not all there:\n%s", got)
	}
}
