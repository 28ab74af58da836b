package printmode

import (
	"io"
	"math"
	"regexp"
	"strings"

	"parley/internal/markdown"
)

// This file renders the answer's markdown for a terminal as the chat screen draws it, with
// the same renderer, while it streams: each block is written once it is complete (a chunk of
// markdown.Stream), and what is left at the end.

// rendered is one answer's markdown on its way to a terminal.
type rendered struct {
	md     markdown.Renderer
	stream markdown.Stream
	width  int
	// text is the answer so far, neutralised; written counts the lines already out.
	text    strings.Builder
	written int
}

// add takes more of the answer and writes the lines that will not change to w.
func (r *rendered) add(w io.Writer, text string) {
	r.text.WriteString(text)
	lines := r.render()
	r.write(w, lines[:min(r.stream.Stable(), len(lines))])
}

// end writes the rest of the answer to w.
func (r *rendered) end(w io.Writer) {
	if r.text.Len() > 0 {
		r.write(w, r.render())
	}
}

// render renders the answer so far, every chunk of it: print mode has no frame to keep short.
func (r *rendered) render() []string {
	r.stream.SetMinChunk(1) // every block a chunk: written as soon as it is whole
	quota := math.MaxInt
	text := r.text.String()
	lines := r.stream.Render(&r.md, nil, text, r.width, true, &quota)
	if r.stream.RenderRange(&r.md, text, 0, len(lines), &quota) {
		lines = r.stream.Render(&r.md, nil, text, r.width, true, &quota)
	}
	return lines
}

// write writes the lines of lines past those already written, each ending its line.
func (r *rendered) write(w io.Writer, lines []string) {
	for _, l := range lines[min(r.written, len(lines)):] {
		io.WriteString(w, trimPadding(l)+"\n")
	}
	r.written = max(r.written, len(lines))
}

// sgr matches one select-graphic-rendition sequence at the end of a line.
var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m$`)

// trimPadding takes off the spaces glamour pads a line to its width with, styled or not: on a
// screen they are cells of a box, in a terminal's scrollback and a copy they are noise. A
// style left open by a sequence taken off is closed.
func trimPadding(l string) string {
	cut := false
	for {
		t := strings.TrimRight(l, " ")
		if loc := sgr.FindStringIndex(t); loc != nil {
			l, cut = t[:loc[0]], true
			continue
		}
		if cut {
			return t + "\x1b[m"
		}
		return t
	}
}
