package markdown

import (
	"regexp"
	"strings"
)

// This file reads a reply line by line and cuts it into chunks: at safe boundaries, where
// glued renders equal one render of the whole, or, past MaxChunk, wherever it must.

// refDef matches a link reference definition, which can change how earlier text renders.
var refDef = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:`)

// scan reads the complete lines of text after s.scanned, tracking code fences and lists, and
// cuts chunks: at the first safe boundary at least minSize after the last cut (the start of a
// line that follows a blank line, outside a fence, and that begins a block which cannot
// continue what came before: no indent, quote, setext underline or HTML; a list item only
// when no list came since the last boundary), or, past maxSize, at a line start. It reports
// whether the text is still safe to cut at safe boundaries.
func (s *Stream) scan(text string) bool {
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
func (s *Stream) read(text string, start int, line string) {
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
func (s *Stream) force(text string, start int, line string) {
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
func (s *Stream) cut(text string, at int, fence, fenceLine string, fenced int) {
	c := chunk{start: s.stableEnd, end: at, reopen: s.reopen, work: work(at-s.stableEnd, fenced), at: s.chunksEnd}
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
