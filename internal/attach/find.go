package attach

import "strings"

// Span is an attached file found in a stored operator message: text[Start:End] is its block
// (Block's shape: its path on a line, then its text fenced), Path is its path and Size the
// length of its text in bytes.
type Span struct {
	Start, End int
	Path       string
	Size       int64
}

// Label is how a collapsed attachment shows: "main.go · 2.1 KiB".
func (s Span) Label() string { return s.Path + " · " + Size(s.Size) }

// Find returns the attached files of an operator message, in order: each block that has the
// shape Block gives it, standing alone between blank lines (or the message's start and end),
// its fence closed. A message without one costs a scan of its lines.
func Find(text string) []Span {
	var out []Span
	lines := strings.SplitAfter(text, "\n")
	pos := 0
	for i := 0; i < len(lines); i++ {
		start := pos
		pos += len(lines[i])
		path := strings.TrimSuffix(lines[i], "\n")
		if i+1 >= len(lines) || (i > 0 && strings.TrimSpace(lines[i-1]) != "") || !isPath(path) {
			continue
		}
		fence, ok := openFence(strings.TrimSuffix(lines[i+1], "\n"), path)
		if !ok {
			continue
		}
		end, size := pos+len(lines[i+1]), 0
		for j := i + 2; j < len(lines); j++ {
			l := strings.TrimSuffix(lines[j], "\n")
			if l == fence {
				if j+1 < len(lines) && strings.TrimSpace(lines[j+1]) != "" {
					break // text goes on right after it: not a block Block made
				}
				out = append(out, Span{Start: start, End: end + len(l), Path: path, Size: int64(max(size-1, 0))})
				for k := i + 1; k <= j; k++ {
					pos += len(lines[k])
				}
				i = j
				break
			}
			end += len(lines[j])
			size += len(lines[j])
		}
	}
	return out
}

// isPath reports whether line could be the path heading an attached file: one word-like run
// without a markdown marker at its start.
func isPath(line string) bool {
	return line != "" && strings.TrimSpace(line) == line && !strings.ContainsAny(line[:1], "#>-*`~|") &&
		!strings.ContainsAny(line, "\t`")
}

// openFence returns the fence a line opens when it opens the block of a file at path: three
// or more backticks, then the path's extension as Block names it (nothing when it names none).
func openFence(line, path string) (string, bool) {
	n := 0
	for n < len(line) && line[n] == '`' {
		n++
	}
	if n < 3 {
		return "", false
	}
	return line[:n], line[n:] == language(path)
}
