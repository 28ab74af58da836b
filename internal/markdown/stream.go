package markdown

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// This file renders a reply in chunks, within a quota of rendering work per frame: the chunks
// on screen once each, the unstable tail again as it grows. cuts.go says where the
// chunks are cut.

// Sizes of the pieces a reply is rendered in. Sizes are in units of rendering work: a byte of
// prose is one, a byte inside a code block two and a half (highlighting it takes glamour about
// 2.5 µs, a byte of prose 1 µs). So no single render holds the event loop for more than a few
// milliseconds, however long the reply or the block it is in.
const (
	// minChunk: a chunk ends at the first safe boundary at least this many bytes from its
	// start, so that short blocks share a render.
	minChunk = 1 << 10
	// MaxChunk: a chunk that reaches no safe boundary (a long code block, list or table) is
	// cut at a line start past this much work, preferably one after a blank line.
	MaxChunk = 3 << 10
	// FrameQuota: how much work of chunks and tail is rendered with glamour per message;
	// what is left is shown as plain text and rendered on the next frames.
	FrameQuota = 6 << 10
)

// work is the rendering work of n bytes of which fenced are inside code blocks.
func work(n, fenced int) int { return n + fenced*3/2 }

// Stream renders a reply, growing or whole, in chunks, rendering only what is on screen:
// a frame costs what the screen shows and the unstable tail, whatever the reply's length. Its
// zero value is ready to use.
//
// The text is cut into chunks at positions that depend on the text alone, so a reply cut
// while it streamed and the same reply opened later are drawn alike. A chunk is shown as
// plain text until it is on screen, and is then rendered with glamour, once, as a document
// of its own; the renders are glued. Only the tail after the last cut is rendered again as it
// grows. Chunks that scroll past unseen while a fast reply streams are rendered if they are
// ever scrolled back to.
//
// Most cuts are at safe boundaries (a line that starts a new top-level block after a blank line,
// where no construct is open, and that does not follow a block glamour ends otherwise when more
// follows: code, a heading, a rule); glued renders there equal one render of the whole
// (TestStreamingMarkdownMatchesFullRender checks this on a corpus). A chunk that reaches no safe
// boundary within MaxChunk is cut anyway, and drawn close to, not exactly as, a whole render:
// inside a code block the block is closed at the cut and opened again after it and the seam glued
// away (highlighting restarts there); a list, table or paragraph becomes two. Text holding
// something whose meaning can reach across a blank line (HTML blocks, link reference definitions)
// is only cut that way.
type Stream struct {
	width int
	dark  bool
	// min and max are the chunk sizes; zero means minChunk and MaxChunk.
	min, max int
	// off is set once safe boundaries are not known to be safe for this text.
	off bool
	// growing is set while the text is a reply still being written (SetGrowing).
	growing bool

	// chunks are the chunks cut so far, in order; plain of them are not rendered yet.
	chunks []chunk
	plain  int
	// lines holds the head lines, then each chunk's lines (rendered or plain), to chunksEnd;
	// each call of lines appends the tail's after them.
	lines     []string
	head      int
	chunksEnd int
	// tail is the tail's render, of the text up to tailEnd; tailPlain is set when it is plain
	// for want of quota.
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

// chunk is a piece of a reply's text rendered on its own.
type chunk struct {
	start, end int
	// reopen is the fence line put before the text: it starts inside a code block. close is
	// the fence put after it: it ends inside one.
	reopen, close string
	// work is the work of rendering it.
	work int
	// at and n place its lines in Stream.lines; rendered is set once they are glamour's.
	at, n    int
	rendered bool
}

// reset starts over for a width, a background and a head.
func (s *Stream) reset(width int, dark bool, off bool, head []string) {
	*s = Stream{width: width, dark: dark, min: s.min, max: s.max, off: off, growing: s.growing, head: len(head), chunksEnd: len(head), lines: s.lines[:0]}
	s.lines = append(s.lines, head...)
}

// Render returns head followed by the lines of text: its chunks as they are (rendered or
// plain), then the tail, rendered with glamour if the quota allows it (taking the work from
// it). text must extend the text of the previous call unless the width or background changed.
// The result shares memory with s: append to it only what may be overwritten by the next call.
func (s *Stream) Render(md *Renderer, head []string, text string, width int, dark bool, quota *int) []string {
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
		s.renderTail(md, text, quota)
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
// the quota has left (tailPlain: until the next frame) or than a frame should take (one line
// longer than a chunk: until a cut passes it, or for good if the reply ends in it).
func (s *Stream) renderTail(md *Renderer, text string, quota *int) {
	s.tailEnd, s.tailPlain = len(text), false
	end := len(text)
	if s.growing {
		end = s.stableEnd + heldFrom(text[s.stableEnd:], s.fence != "")
	}
	tail := text[s.stableEnd:end]
	w := s.tailWork(text)
	switch {
	case tail == "":
		s.tail = nil
	case w/2 > s.maxSize():
		s.tail = plainChunk(tail, s.width)
	case w > *quota:
		s.tail, s.tailPlain = plainChunk(tail, s.width), true
	default:
		*quota -= w
		s.tail = md.renderChunk(chunk{start: s.stableEnd, end: end, reopen: s.reopen}, text, s.width, s.dark, true)
	}
	if len(s.chunks) == 0 {
		s.tail = trimLeading(s.tail)
	}
}

// tailWork is the work of rendering the text after the last cut.
func (s *Stream) tailWork(text string) int {
	n, fenced := len(text)-s.stableEnd, s.fenced
	if s.fence != "" {
		fenced += len(text) - s.scanned
	}
	return work(n, fenced)
}

// RenderRange renders, within the quota, the chunks that show on lines [from, to) of the
// last render, and reports whether any was. The chunks' lines change, so the render must be
// asked for again.
func (s *Stream) RenderRange(md *Renderer, text string, from, to int, quota *int) bool {
	changed := false
	end := sort.Search(len(s.chunks), func(i int) bool { return s.chunks[i].at >= to })
	for i := s.chunkAt(from); i < end && *quota > 0; i++ {
		c := &s.chunks[i]
		if c.rendered {
			continue
		}
		*quota -= c.work
		lines := md.renderChunk(*c, text, s.width, s.dark, false)
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
// quota to be rendered.
func (s *Stream) Unfinished(from, to int) bool {
	for i := s.chunkAt(from); i < len(s.chunks) && s.chunks[i].at < to; i++ {
		if !s.chunks[i].rendered {
			return true
		}
	}
	return s.tailPlain && to > s.chunksEnd
}

// SetGrowing says whether the text is a reply still being written: while it is, the tail's
// unfinished last line is shown without an emphasis or code span it opens and has not closed
// yet (heldFrom), which glamour would draw as raw markers (**bold) until the closing ones
// come. The held text shows once it closes, its line ends, or growing is cleared.
func (s *Stream) SetGrowing(growing bool) {
	if growing != s.growing {
		s.growing, s.tailEnd = growing, -1 // the tail is rendered again
	}
}

// SetMinChunk makes chunks from n bytes on, where a frame's cost wants them at least
// minChunk: print mode writes each block as soon as it is whole, and has no frame to keep
// short. It applies from the next Render of a new text.
func (s *Stream) SetMinChunk(n int) { s.min = n }

// Stable returns how many of the last render's lines stay as they are while the text grows: the
// head's and those of the chunks up to the first still plain. The tail's may change. Print mode
// writes them as soon as they are stable.
func (s *Stream) Stable() int {
	for _, c := range s.chunks {
		if !c.rendered {
			return c.at
		}
	}
	return s.chunksEnd
}

// Rendered reports whether every chunk and the tail are rendered: nothing is left to do
// unless the text grows.
func (s *Stream) Rendered() bool { return !s.tailPlain && s.plain == 0 }

// Progress is how far the render of a reply has got.
type Progress struct {
	// Chunks says of each chunk cut so far, in order, whether glamour has rendered it (it
	// shows as plain text until then).
	Chunks []bool
	// TailWork is the work of rendering the text after the last chunk.
	TailWork int
}

// Progress returns how far the render of text, the text of the last Render, has got.
func (s *Stream) Progress(text string) Progress {
	p := Progress{Chunks: make([]bool, len(s.chunks)), TailWork: s.tailWork(text)}
	for i, c := range s.chunks {
		p.Chunks[i] = c.rendered
	}
	return p
}

// chunkAt returns the index of the chunk that shows on line l, or of the first after it.
func (s *Stream) chunkAt(l int) int {
	return sort.Search(len(s.chunks), func(i int) bool { return s.chunks[i].at+s.chunks[i].n > l })
}

func (s *Stream) minSize() int { return cmp.Or(s.min, minChunk) }
func (s *Stream) maxSize() int { return cmp.Or(s.max, MaxChunk) }
