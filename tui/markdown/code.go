package markdown

import (
	"strings"

	"parley/tui/wrap"
)

// This file finds the code fences of markdown, and wraps long code lines before glamour does,
// keeping their indentation.

// codeMargin is how much narrower than the document a code line must be for glamour to leave
// it whole: its margins and padding, and some room for the indent of a list around it.
const codeMargin = 6

// wrapCode wraps the long lines of fenced code blocks itself, before glamour would: glamour
// starts a wrapped code line at the margin, which loses its indentation; here it keeps it. Text
// is scanned from a line outside any fence, as every chunk of Stream starts.
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
				b.WriteString(strings.Join(wrap.Indented(line, w), "\n"))
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
