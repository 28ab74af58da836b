// Package markdown renders replies' markdown for the terminal: it owns the glamour renderer
// (Renderer) and a reply's render in chunks (Stream), cut where glued renders equal one render
// of the whole, so that a frame costs what the screen shows, whatever the reply's length.
//
// render.go renders with glamour, stream.go renders a reply in chunks within a quota of work,
// cuts.go says where the chunks are cut, code.go finds code fences and prepares code blocks,
// source.go and html.go keep what glamour would drop (raw HTML, the break between a list
// item's paragraphs), and layout.go lays out what glamour does not (code labels,
// tables as wide as their content, list items that hang).
package markdown

import (
	"strings"
	"unicode/utf8"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"
)

// This file renders markdown with glamour: the renderer kept per width and background, and
// one chunk of a reply rendered so that the chunks glue into the whole.

// Renderer renders reply text with glamour; its zero value is ready to use. It keeps one
// glamour renderer for the current width and background: creating one parses a whole style, so
// it is done once per width, never per frame. It is not safe for concurrent use; the Bubble
// Tea loop is single-threaded.
type Renderer struct {
	width int
	dark  bool
	r     *glamour.TermRenderer
}

// Render renders text as one document on a dark or light background, and returns glamour's
// lines as they are, with the blank lines glamour puts before and after the document, each
// line cut to width.
func (md *Renderer) Render(text string, width int, dark bool) []string {
	return md.render(text, width, dark, false)
}

// render is Render of text that starts inside a code block opened before it when reopened.
// The source is prepared (source.go: raw HTML escaped, list items' paragraphs kept apart) and
// its code blocks too (code.go), and glamour's lines are laid out (layout.go).
func (md *Renderer) render(text string, width int, dark bool, reopened bool) []string {
	if md.r == nil || md.width != width || md.dark != dark {
		r, err := glamour.NewTermRenderer(glamour.WithStyles(styleConfig(dark)), glamour.WithWordWrap(width))
		if err != nil {
			// Only a bad style fails here, and both styles are parley's own.
			return plainLines(text, width)
		}
		md.r, md.width, md.dark = r, width, dark
	}
	// glamour drops tab characters, which would flatten indented code: give them a width.
	src := wrapCode(prepare(strings.ReplaceAll(text, "\t", "    ")), width, reopened)
	out, err := md.r.Render(src)
	if err != nil {
		return plainLines(text, width)
	}
	lines := md.lay(strings.Split(out, "\n"), width)
	return hardWrap(lines, width)
}

// hardWrap breaks the lines wider than width, which glamour leaves long (a URL, a word longer
// than the line), so that no character is cut off the screen. The pieces keep the line's
// margin and a quote's bars.
func hardWrap(lines []string, width int) []string {
	for i := 0; i < len(lines); i++ {
		if fits(lines[i], width) {
			continue
		}
		lead := margin(visiblePrefix(lines[i], width/2))
		head, rest := splitVisible(lines[i], lead)
		pieces := strings.Split(ansi.Hardwrap(rest, width-lead, true), "\n")
		for k := range pieces {
			if k == 0 {
				pieces[k] = head + pieces[k]
			} else {
				pieces[k] = strings.ReplaceAll(ansi.Strip(head), "\u00a0", " ") + pieces[k]
			}
		}
		lines = append(lines[:i], append(pieces, lines[i+1:]...)...)
		i += len(pieces) - 1
	}
	return lines
}

// margin returns how many of prefix's characters are margin: spaces, and a quote's bars with
// the space after each.
func margin(prefix string) int {
	n := 0
	for _, r := range prefix {
		if r != ' ' && r != '│' {
			break
		}
		n++
	}
	return n
}

// fits reports whether a styled line is at most width columns wide. Most of glamour's lines are
// ASCII and a few narrow symbols between escape sequences: those are counted in one pass, and
// only a line with other characters, or one that seems too wide, is measured in full.
func fits(line string, width int) bool {
	n := 0
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == '\x1b':
			i++
			if i < len(line) && line[i] == '[' {
				for i++; i < len(line) && (line[i] < 0x40 || line[i] > 0x7e); i++ {
				}
			}
			i++
			continue
		case c < 0x80:
			i++
		default:
			r, size := utf8.DecodeRuneInString(line[i:])
			if r >= 0x1100 && !narrowSymbol(r) {
				return ansi.StringWidth(line) <= width // wide, joined or combining: measured
			}
			i += size
		}
		if n++; n > width {
			return ansi.StringWidth(line) <= width
		}
	}
	return true
}

// narrowSymbol reports whether r is one of the one-column symbols glamour and parley draw
// with: dashes, quotes and the ellipsis, bullets, arrows, box drawing.
func narrowSymbol(r rune) bool {
	return (r >= 0x2010 && r <= 0x2027) || (r >= 0x2190 && r <= 0x21ff) || (r >= 0x2500 && r <= 0x257f)
}

// plainLines wraps text without markdown, for when glamour cannot render it.
func plainLines(text string, width int) []string {
	return strings.Split(ansi.Wrap(text, width, ""), "\n")
}

// trimLeading drops leading lines that show nothing, as one render of the whole has them
// trimmed.
func trimLeading(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[0])) == "" {
		lines = lines[1:]
	}
	return lines
}

// renderChunk renders chunk c of text and returns the lines it adds to the reply. Glamour
// renders a chunk as a document: one blank line before it and two after (dropped unless the
// chunk is the last), and blocks after the first drawn otherwise than a document's first (a paragraph
// or heading then starts with a blank line), so a chunk after the first is rendered behind a
// one-line paragraph that is then cut off. A chunk that goes on inside a code block loses the
// block's top line: the chunk before drew it.
func (md *Renderer) renderChunk(c chunk, text string, width int, dark bool, last bool) []string {
	src := c.reopen + text[c.start:c.end] + c.close
	var r []string
	if c.start == 0 {
		r = md.render(src, width, dark, c.reopen != "")
		if len(r) == 0 || r[0] != "" {
			return plainChunk(src, width)
		}
		r = r[1:]
	} else {
		r = md.render("x\n\n"+src, width, dark, c.reopen != "")
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
