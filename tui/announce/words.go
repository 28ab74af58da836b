package announce

import (
	"regexp"
	"strings"
)

// A reply's markdown is said as words: a screen reader reads "**" as "star star", and the
// lines are written once, as they complete, so nothing can render them later. Emphasis and
// inline code lose their markers, a heading its hashes, a link says its text and then its
// address; a fenced block is said to begin and end, and its lines are kept as written.

var (
	bold       = regexp.MustCompile(`\*\*([^*\n]+?)\*\*|__([^_\n]+?)__`)
	starItalic = regexp.MustCompile(`(^|[^\w*])\*([^*\s](?:[^*\n]*[^*\s])?)\*($|[^\w*])`)
	lineItalic = regexp.MustCompile(`(^|[^\w_])_([^_\s](?:[^_\n]*[^_\s])?)_($|[^\w_])`)
	inlineCode = regexp.MustCompile("`([^`\n]+)`")
	link       = regexp.MustCompile(`\[([^\]\n]+)\]\(([^)\s]+)\)`)
	heading    = regexp.MustCompile(`^#{1,6}\s+`)
	bullet     = regexp.MustCompile(`^(\s*)[*+]\s`)
)

// words turns one line of a reply into what a screen reader should read; inCode is whether
// the line is inside a fenced code block, and is updated for the next line.
func words(line string, inCode *bool) string {
	trimmed := strings.TrimSpace(line)
	if fence := strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"); fence {
		if *inCode {
			*inCode = false
			return "end of code"
		}
		*inCode = true
		if lang := strings.Trim(trimmed, "`~ "); lang != "" {
			return "code, " + lang + ":"
		}
		return "code:"
	}
	if *inCode {
		return line
	}
	line = heading.ReplaceAllString(line, "")
	line = bullet.ReplaceAllString(line, "$1- ")
	line = inlineCode.ReplaceAllString(line, "$1")
	line = link.ReplaceAllString(line, "$1 ($2)")
	line = bold.ReplaceAllString(line, "$1$2")
	line = starItalic.ReplaceAllString(line, "$1$2$3")
	return lineItalic.ReplaceAllString(line, "$1$2$3")
}
