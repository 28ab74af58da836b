package tui

import (
	"cmp"
	"regexp"
	"slices"
	"sort"
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

// plainLines wraps text without markdown, for when glamour cannot render it.
func plainLines(text string, width int) []string {
	return strings.Split(ansi.Wrap(text, width, ""), "\n")
}

// Sizes of the pieces a reply is rendered in. Sizes are in units of rendering work: a byte of
// prose is one, a byte inside a code block two and a half (highlighting it takes glamour about
// 2.5 µs, a byte of prose 1 µs). So no single render holds the event loop for more than a few
// milliseconds, however long the reply or the block it is in.
const (
	// minChunk: a chunk ends at the first safe boundary at least this many bytes from its
	// start, so that short blocks share a render.
	minChunk = 1 << 10
	// maxChunk: a chunk that reaches no safe boundary (a long code block, list or table) is
	// cut at a line start past this much work, preferably one after a blank line.
	maxChunk = 3 << 10
	// frameBudget: how much work of chunks and tail is rendered with glamour per message;
	// what is left is shown as plain text and rendered on the next frames.
	frameBudget = 6 << 10
)

// work is the rendering work of n bytes of which fenced are inside code blocks.
func work(n, fenced int) int { return n + fenced*3/2 }

// streamMD renders a reply, growing or whole, in chunks, rendering only what is on screen:
// a frame costs what the screen shows and the unstable tail, whatever the reply's length.
//
// The text is cut into chunks at positions that depend on the text alone, so a reply cut
// while it streamed and the same reply opened later are drawn alike. A chunk is shown as
// plain text until it is on screen, and is then rendered with glamour, once, as a document
// of its own; the renders are glued. Only the tail after the last cut is rendered again as it
// grows. Chunks that scroll past unseen while a fast reply streams are rendered if they are
// ever scrolled back to.
//
// Most cuts are at safe boundaries (a line that starts a new top-level block after a blank
// line, where no construct is open, and that does not follow a block glamour ends otherwise
// when more follows: code, a heading, a rule); glued renders there equal one render of the
// whole (the golden test checks this on a corpus). A chunk that reaches no safe boundary within maxChunk
// is cut anyway, and drawn close to, not exactly as, a whole render: inside a code block the
// block is closed at the cut and opened again after it and the seam glued away (highlighting
// restarts there); a list, table or paragraph becomes two. Text holding something whose
// meaning can reach across a blank line (HTML blocks, link reference definitions) is only
// cut that way.
type streamMD struct {
	width int
	dark  bool
	// min and max are the chunk sizes; zero means minChunk and maxChunk.
	min, max int
	// off is set once safe boundaries are not known to be safe for this text.
	off bool

	// chunks are the chunks cut so far, in order; plain of them are not rendered yet.
	chunks []mdChunk
	plain  int
	// lines holds the head lines, then each chunk's lines (rendered or plain), to chunksEnd;
	// each call of lines appends the tail's after them.
	lines     []string
	head      int
	chunksEnd int
	// tail is the tail's render, of the text up to tailEnd; tailPlain is set when it is plain
	// for want of budget.
	tail      []string
	tailEnd   int
	tailPlain bool

	// stableEnd is where the tail starts: the end of the last chunk, a line start. reopen is
	// the fence line the tail starts inside of, if it does.
	stableEnd int
	reopen    string

	// The scanner's state. scanned is how far the text is read, always a line start.
	scanned int
	// fence is the open code fence ("```", "~~~~", …), empty when none is open, and
	// fenceLine the line that opened it.
	fence, fenceLine string
	// blank reports whether the last line read was blank.
	blank bool
	// list is set while the text after the newest boundary holds a list: a list item after a
	// blank line would continue that list (and loosen it), so it is not a boundary then.
	list bool
	// ended is set from a line that ends a block the way endsOddly says, or that closes a
	// fence, to the next text: a chunk does not end there.
	ended bool
	// fenced counts the tail's complete lines' bytes inside code blocks.
	fenced int
	// soft is the latest line start in the tail after a blank line, where a forced cut
	// splits best, with the fence open there (softFence, softLine) and fenced as it was there.
	soft                int
	softFence, softLine string
	softFenced          int
}

// mdChunk is a piece of a reply's text rendered on its own.
type mdChunk struct {
	start, end int
	// reopen is the fence line put before the text: it starts inside a code block. close is
	// the fence put after it: it ends inside one.
	reopen, close string
	// work is the work of rendering it.
	work int
	// at and n place its lines in streamMD.lines; rendered is set once they are glamour's.
	at, n    int
	rendered bool
}

// refDef matches a link reference definition, which can change how earlier text renders.
var refDef = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:`)

// reset starts over for a width, a background and a head.
func (s *streamMD) reset(width int, dark bool, off bool, head []string) {
	*s = streamMD{width: width, dark: dark, min: s.min, max: s.max, off: off, head: len(head), chunksEnd: len(head), lines: s.lines[:0]}
	s.lines = append(s.lines, head...)
}

// render returns head followed by the lines of text: its chunks as they are (rendered or
// plain), then the tail, rendered with glamour if the budget allows it (taking the work from
// it). text must extend the text of the previous call unless the width or background changed.
// The result shares memory with s: append to it only what may be overwritten by the next call.
func (s *streamMD) render(md *markdown, head []string, text string, width int, dark bool, budget *int) []string {
	if s.width != width || s.dark != dark || s.scanned > len(text) || s.head != len(head) {
		s.reset(width, dark, false, head)
	}
	copy(s.lines, head)
	if off := s.off; !s.scan(text) && off != s.off {
		// Cuts made before are not safe after all: cut again, at forced cuts only.
		s.reset(width, dark, true, head)
		s.scan(text)
	}
	if s.tailEnd != len(text) || s.tailPlain {
		s.renderTail(md, text, budget)
	}
	out := append(s.lines[:s.chunksEnd], s.tail...)
	s.lines = out[:s.chunksEnd] // keeps a grown array
	n := len(out)
	for n > s.head && strings.TrimSpace(ansi.Strip(out[n-1])) == "" {
		n--
	}
	if n < s.chunksEnd {
		// What the caller appends must not overwrite a chunk's lines.
		return out[:n:n]
	}
	return out[:n]
}

// renderTail renders the text after the last cut, or shows it plain when it is more work than
// the budget has left (tailPlain: until the next frame) or than a frame should take (one line
// longer than a chunk: until a cut passes it, or for good if the reply ends in it).
func (s *streamMD) renderTail(md *markdown, text string, budget *int) {
	s.tailEnd, s.tailPlain = len(text), false
	tail := text[s.stableEnd:]
	w := s.tailWork(text)
	switch {
	case tail == "":
		s.tail = nil
	case w/2 > s.maxSize():
		s.tail = plainChunk(tail, s.width)
	case w > *budget:
		s.tail, s.tailPlain = plainChunk(tail, s.width), true
	default:
		*budget -= w
		s.tail = md.chunk(mdChunk{start: s.stableEnd, end: len(text), reopen: s.reopen}, text, s.width, s.dark, true)
	}
	if len(s.chunks) == 0 {
		s.tail = trimLeading(s.tail)
	}
}

// tailWork is the work of rendering the text after the last cut.
func (s *streamMD) tailWork(text string) int {
	n, fenced := len(text)-s.stableEnd, s.fenced
	if s.fence != "" {
		fenced += len(text) - s.scanned
	}
	return work(n, fenced)
}

// renderRange renders, within the budget, the chunks that show on lines [from, to) of the
// last render, and reports whether any was. The chunks' lines change, so the render must be
// asked for again.
func (s *streamMD) renderRange(md *markdown, text string, from, to int, budget *int) bool {
	changed := false
	end := sort.Search(len(s.chunks), func(i int) bool { return s.chunks[i].at >= to })
	for i := s.chunkAt(from); i < end && *budget > 0; i++ {
		c := &s.chunks[i]
		if c.rendered {
			continue
		}
		*budget -= c.work
		lines := md.chunk(*c, text, s.width, s.dark, false)
		if i == 0 {
			lines = trimLeading(lines)
		}
		s.lines = slices.Replace(s.lines[:s.chunksEnd], c.at, c.at+c.n, lines...)
		delta := len(lines) - c.n
		c.n, c.rendered = len(lines), true
		s.plain--
		for k := i + 1; k < len(s.chunks); k++ {
			s.chunks[k].at += delta
		}
		s.chunksEnd += delta
		changed = true
	}
	return changed
}

// Unfinished reports whether lines [from, to) of the last render show text that waits for
// budget to be rendered.
func (s *streamMD) Unfinished(from, to int) bool {
	for i := s.chunkAt(from); i < len(s.chunks) && s.chunks[i].at < to; i++ {
		if !s.chunks[i].rendered {
			return true
		}
	}
	return s.tailPlain && to > s.chunksEnd
}

// Rendered reports whether every chunk and the tail are rendered: nothing is left to do
// unless the text grows.
func (s *streamMD) Rendered() bool { return !s.tailPlain && s.plain == 0 }

// chunkAt returns the index of the chunk that shows on line l, or of the first after it.
func (s *streamMD) chunkAt(l int) int {
	return sort.Search(len(s.chunks), func(i int) bool { return s.chunks[i].at+s.chunks[i].n > l })
}

func (s *streamMD) minSize() int { return cmp.Or(s.min, minChunk) }
func (s *streamMD) maxSize() int { return cmp.Or(s.max, maxChunk) }

// trimLeading drops leading lines that show nothing, as one render of the whole has them
// trimmed.
func trimLeading(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[0])) == "" {
		lines = lines[1:]
	}
	return lines
}

// chunk renders chunk c of text and returns the lines it adds to the reply. Glamour renders
// a chunk as a document: one blank line before it and two after (dropped unless the chunk is
// the last), and blocks after the first drawn otherwise than a document's first (a paragraph
// or heading then starts with a blank line), so a chunk after the first is rendered behind a
// one-line paragraph that is then cut off. A chunk that goes on inside a code block loses the
// block's top line: the chunk before drew it.
func (md *markdown) chunk(c mdChunk, text string, width int, dark bool, last bool) []string {
	src := c.reopen + text[c.start:c.end] + c.close
	var r []string
	if c.start == 0 {
		r = md.raw(src, width, dark)
		if len(r) == 0 || r[0] != "" {
			return plainChunk(src, width)
		}
		r = r[1:]
	} else {
		r = md.raw("x\n\n"+src, width, dark)
		if len(r) < 2 || r[0] != "" || strings.TrimSpace(ansi.Strip(r[1])) != "x" {
			return plainChunk(src, width)
		}
		r = r[2:]
	}
	if c.reopen != "" && len(r) > 0 {
		r = r[1:]
	}
	if n := len(r); !last && n >= 2 && r[n-1] == "" {
		// Glamour's two closing lines (a code block leaves its last line and one).
		r = r[:n-2]
	}
	return r
}

// plainChunk is markdown shown as it is, under the margin glamour gives a document.
func plainChunk(text string, width int) []string {
	lines := plainLines(strings.TrimSuffix(text, "\n"), max(width-2, 1))
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return lines
}

// scan reads the complete lines of text after s.scanned, tracking code fences and lists, and
// cuts chunks: at the first safe boundary at least minSize after the last cut (the start of a
// line that follows a blank line, outside a fence, and that begins a block which cannot
// continue what came before: no indent, quote, setext underline or HTML; a list item only
// when no list came since the last boundary), or, past maxSize, at a line start. It reports
// whether the text is still safe to cut at safe boundaries.
func (s *streamMD) scan(text string) bool {
	for {
		nl := strings.IndexByte(text[s.scanned:], '\n')
		if nl < 0 {
			break
		}
		start := s.scanned
		line := text[start : start+nl]
		s.scanned = start + nl + 1
		s.force(text, start, line)
		s.read(text, start, line)
	}
	if refDef.MatchString(text[s.scanned:]) {
		// A definition still being written already changes links above it.
		s.off = true
	}
	return !s.off
}

// read takes in the line of text at start.
func (s *streamMD) read(text string, start int, line string) {
	if s.fence != "" {
		if closesFence(line, s.fence) {
			s.fence, s.ended = "", true
		} else if s.blank && line != "" && line[0] != ' ' && line[0] != '\t' {
			// In code, an unindented line after a blank one starts a new declaration: a seam
			// there meets the least highlighting state.
			s.soft, s.softFence, s.softLine, s.softFenced = start, s.fence, s.fenceLine, s.fenced
		}
		s.fenced += len(line) + 1
		s.blank = strings.TrimSpace(line) == ""
		return
	}
	if strings.TrimSpace(line) == "" {
		s.blank = true
		return
	}
	if refDef.MatchString(line) || strings.HasPrefix(strings.TrimLeft(line, " "), "<") {
		s.off = true
	}
	item := listItem(line)
	if s.blank {
		if safeStart(line) || (item && !s.list) {
			if !s.off && !s.ended && start-s.stableEnd >= s.minSize() {
				s.cut(text, start, "", "", s.fenced)
			}
			s.list = false
		}
		s.soft, s.softFence, s.softLine, s.softFenced = start, "", "", s.fenced
	}
	s.list = s.list || item
	s.blank, s.ended = false, endsOddly(line)
	if f := opensFence(line); f != "" {
		s.fence, s.fenceLine = f, line+"\n"
	}
}

// force cuts the tail before the line at start once it is more than maxSize work: at the
// latest line start after a blank line if that leaves a chunk of at least half the work, else
// here. A fence is never cut at its closing line.
func (s *streamMD) force(text string, start int, line string) {
	if work(start-s.stableEnd, s.fenced) < s.maxSize() || (s.fence != "" && closesFence(line, s.fence)) {
		return
	}
	if s.soft > s.stableEnd && work(s.soft-s.stableEnd, s.softFenced) >= s.maxSize()/2 {
		s.cut(text, s.soft, s.softFence, s.softLine, s.softFenced)
		return
	}
	s.cut(text, start, s.fence, s.fenceLine, s.fenced)
}

// cut ends a chunk at at, inside the fence opened by fenceLine if fence is not empty; fenced
// of its bytes are inside code blocks. The chunk shows plain until it is rendered.
func (s *streamMD) cut(text string, at int, fence, fenceLine string, fenced int) {
	c := mdChunk{start: s.stableEnd, end: at, reopen: s.reopen, work: work(at-s.stableEnd, fenced), at: s.chunksEnd}
	if fence == "" {
		fenceLine = ""
	} else {
		c.close = fence + "\n"
	}
	plain := plainChunk(text[c.start:c.end], s.width)
	if len(s.chunks) == 0 {
		plain = trimLeading(plain)
	}
	c.n = len(plain)
	s.lines = append(s.lines[:s.chunksEnd], plain...)
	s.chunksEnd = len(s.lines)
	s.chunks = append(s.chunks, c)
	s.plain++
	s.stableEnd, s.reopen, s.fenced = at, fenceLine, s.fenced-fenced
	s.soft, s.softFenced = 0, 0
}

// endsOddly reports whether line ends a block that glamour draws otherwise when more follows,
// so that a chunk ending there would not glue exactly: a heading (ATX, or a setext
// underline), a thematic break, or indented code. (A closing fence is another.)
func endsOddly(line string) bool {
	if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") {
		return true
	}
	t := strings.ReplaceAll(strings.TrimSpace(line), " ", "")
	return t != "" && strings.Trim(t, string(t[0])) == "" && strings.ContainsRune("=-*_", rune(t[0]))
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
