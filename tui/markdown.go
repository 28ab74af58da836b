package tui

import (
	"regexp"
	"strings"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"
)

// markdown renders reply text with glamour. It keeps one renderer for the current width and
// background: creating one parses a whole style, so it is done once per width, never per frame.
// A TermRenderer is not safe for concurrent use; the Bubble Tea loop is single-threaded.
type markdown struct {
	width int
	dark  bool
	r     *glamour.TermRenderer
}

// raw renders text and returns glamour's lines as they are, with the blank lines glamour puts
// before and after the document, each line cut to width.
func (md *markdown) raw(text string, width int, dark bool) []string {
	if md.r == nil || md.width != width || md.dark != dark {
		style := "dark"
		if !dark {
			style = "light"
		}
		r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(width))
		if err != nil {
			// Only a bad style fails here, and both styles are built in.
			return plainLines(text, width)
		}
		md.r, md.width, md.dark = r, width, dark
	}
	// glamour drops tab characters, which would flatten indented code: give them a width.
	out, err := md.r.Render(wrapCode(strings.ReplaceAll(text, "\t", "    "), width))
	if err != nil {
		return plainLines(text, width)
	}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		// Long code lines and URLs are not wrapped by glamour.
		if ansi.StringWidth(l) > width {
			lines[i] = ansi.Truncate(l, width, "…")
		}
	}
	return lines
}

// codeMargin is how much narrower than the document a code line must be for glamour to leave
// it whole: its margins and padding, and some room for the indent of a list around it.
const codeMargin = 6

// wrapCode wraps the long lines of fenced code blocks itself, before glamour would: glamour
// starts a wrapped code line at the margin, which loses its indentation; here it keeps it. Text
// is scanned from a line outside any fence, as every chunk of streamMD starts.
func wrapCode(text string, width int) string {
	var b strings.Builder
	b.Grow(len(text))
	fence, indent := "", 0
	for rest := text; rest != ""; {
		line, after, nl := strings.Cut(rest, "\n")
		rest = after
		switch {
		case fence == "":
			if fence = opensFence(line); fence != "" {
				indent = len(line) - len(strings.TrimLeft(line, " "))
			}
			b.WriteString(line)
		case closesFence(line, fence):
			fence = ""
			b.WriteString(line)
		default:
			// The fence's indent is the list's around it: glamour indents its code as much.
			w := width - codeMargin - indent
			if w >= 10 && len(line) > w {
				b.WriteString(strings.Join(wrapIndented(line, w), "\n"))
			} else {
				b.WriteString(line)
			}
		}
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// full renders text in one piece, without the surrounding blank lines.
func (md *markdown) full(text string, width int, dark bool) []string {
	return trimBlank(md.raw(text, width, dark))
}

// plainLines wraps text without markdown, for when glamour cannot render it.
func plainLines(text string, width int) []string {
	return strings.Split(ansi.Wrap(text, width, ""), "\n")
}

// trimBlank drops leading and trailing lines that show nothing.
func trimBlank(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// streamMD renders a reply that is still growing in time linear in its length: the text up to
// the last safe block boundary (the stable prefix) is rendered once, in chunks, and only the
// tail after it is rendered again on each frame. Glamour renders each chunk as a document of
// its own, with one blank line before it and two after; gluing drops those so the result
// matches one render of the whole text (the golden test checks this on a corpus). Whenever the
// text holds something whose meaning can reach across a blank line (HTML blocks, link
// reference definitions), the stream gives up gluing and renders in full.
type streamMD struct {
	width int
	dark  bool
	// off is set once gluing is not known to be safe for this text: render it in full.
	off bool
	// stableEnd is the length of the text covered by stable; it is always a line start after
	// a blank line, outside any code fence.
	stableEnd int
	// stable holds the glued lines of text[:stableEnd], without the trailing blank lines of
	// its last chunk.
	stable []string
	// scanned is how far the text has been scanned for boundaries; always a line start.
	scanned int
	// fence is the open code fence ("```", "~~~~", …), empty when none is open.
	fence string
	// blank reports whether the last scanned line was blank.
	blank bool
	// list is set while the text after the newest boundary holds a list: a list item after a
	// blank line would continue that list (and loosen it), so it is not a boundary then.
	list bool
	// boundary is the newest safe boundary found, at most the text's length.
	boundary int
	// failed is a boundary whose chunk could not be glued, so it is not tried again.
	failed int
}

// refDef matches a link reference definition, which can change how earlier text renders.
var refDef = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:`)

// render returns the lines of text, which must extend the text of the previous call unless
// the width or background changed.
func (s *streamMD) render(md *markdown, text string, width int, dark bool) []string {
	if s.width != width || s.dark != dark || s.scanned > len(text) {
		*s = streamMD{width: width, dark: dark}
	}
	if s.off {
		return md.full(text, width, dark)
	}
	s.scan(text)
	if refDef.MatchString(text[s.scanned:]) {
		// A definition still being written already changes links above it.
		s.off = true
	}
	if s.off {
		return md.full(text, width, dark)
	}
	if s.boundary > s.stableEnd && s.boundary != s.failed {
		var chunk []string
		var ok bool
		if s.stableEnd == 0 {
			chunk, ok = md.first(text[:s.boundary], width, dark)
		} else {
			chunk, ok = md.next(text[s.stableEnd:s.boundary], width, dark)
		}
		if ok {
			s.stable = append(s.stable, chunk...)
			s.stableEnd = s.boundary
		} else {
			// Some blocks (code) end differently when more follows: wait for a later boundary.
			s.failed = s.boundary
		}
	}
	if s.stableEnd == 0 {
		return md.full(text, width, dark)
	}
	tail, ok := md.tail(text[s.stableEnd:], width, dark)
	if !ok {
		s.off = true
		return md.full(text, width, dark)
	}
	out := make([]string, 0, len(s.stable)+len(tail))
	out = append(out, s.stable...)
	return trimBlank(append(out, tail...))
}

// first renders the first chunk of a document: glamour's lines without the blank line it
// puts before the document and the two after it. ok is false if the render has another shape.
func (md *markdown) first(chunk string, width int, dark bool) (lines []string, ok bool) {
	r := md.raw(chunk, width, dark)
	n := len(r)
	if n < 3 || r[0] != "" || r[n-1] != "" || r[n-2] != "" {
		return nil, false
	}
	return r[1 : n-2], true
}

// next renders a chunk that follows other blocks and is followed by more. ok is false if the
// render has another shape than the one gluing relies on.
func (md *markdown) next(chunk string, width int, dark bool) (lines []string, ok bool) {
	r, ok := md.tail(chunk, width, dark)
	n := len(r)
	if !ok || n < 2 || r[n-1] != "" || r[n-2] != "" {
		return nil, false
	}
	return r[:n-2], true
}

// tail renders the last chunk of a document, which follows other blocks. Glamour draws some
// blocks differently when they are not the first of the document (a paragraph or heading then
// starts with a blank line), so the chunk is rendered behind a one-line paragraph, which is
// then cut off.
func (md *markdown) tail(chunk string, width int, dark bool) (lines []string, ok bool) {
	r := md.raw("x\n\n"+chunk, width, dark)
	if len(r) < 2 || r[0] != "" || strings.TrimSpace(ansi.Strip(r[1])) != "x" {
		return nil, false
	}
	return r[2:], true
}

// scan reads the complete lines of text after s.scanned, tracking code fences and lists, and
// records the newest boundary: the start of a line that follows a blank line, outside a fence,
// and that begins a block which cannot continue what came before (no indent, quote,
// setext underline or HTML; a list item only when no list came since the last boundary).
func (s *streamMD) scan(text string) {
	for {
		nl := strings.IndexByte(text[s.scanned:], '\n')
		if nl < 0 {
			return
		}
		start := s.scanned
		line := text[start : start+nl]
		s.scanned = start + nl + 1
		if s.fence != "" {
			if closesFence(line, s.fence) {
				s.fence = ""
			}
			s.blank = false
			continue
		}
		if strings.TrimSpace(line) == "" {
			s.blank = true
			continue
		}
		if refDef.MatchString(line) || strings.HasPrefix(strings.TrimLeft(line, " "), "<") {
			s.off = true
			return
		}
		item := listItem(line)
		if s.blank && (safeStart(line) || (item && !s.list)) {
			s.boundary, s.list = start, false
		}
		s.list = s.list || item
		s.blank = false
		s.fence = opensFence(line)
	}
}

// safeStart reports whether a line after a blank line starts a new top-level block that
// ends whatever block came before it.
func safeStart(line string) bool {
	switch c := line[0]; {
	case c == ' ' || c == '\t' || c == '>' || c == '=' || c == '<' || c == '[':
		return false
	case c == '-' || c == '*' || c == '+':
		return len(line) > 1 && line[1] != ' ' && line[1] != '\t' && c != '-'
	case c >= '0' && c <= '9':
		// "1. item" and "1) item" continue or start a list.
		i := 0
		for i < len(line) && line[i] >= '0' && line[i] <= '9' {
			i++
		}
		return i >= len(line) || (line[i] != '.' && line[i] != ')')
	}
	return true
}

// listItem reports whether a line starts a top-level list item: "-", "*" or "+", or up to nine
// digits and "." or ")", then a space, a tab or the end of the line.
func listItem(line string) bool {
	i := 0
	switch {
	case line == "":
		return false
	case line[0] == '-' || line[0] == '*' || line[0] == '+':
		i = 1
	default:
		for i < len(line) && i < 9 && line[i] >= '0' && line[i] <= '9' {
			i++
		}
		if i == 0 || i == len(line) || (line[i] != '.' && line[i] != ')') {
			return false
		}
		i++
	}
	return i == len(line) || line[i] == ' ' || line[i] == '\t'
}

// opensFence returns the fence a line opens, or "".
func opensFence(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 || (t[0] == '`' && strings.ContainsRune(t[n:], '`')) {
		return ""
	}
	return t[:n]
}

// closesFence reports whether line closes the given fence.
func closesFence(line, fence string) bool {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return false
	}
	n := 0
	for n < len(t) && t[n] == fence[0] {
		n++
	}
	return n >= len(fence) && strings.TrimSpace(t[n:]) == ""
}
