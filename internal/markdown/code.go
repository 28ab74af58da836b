package markdown

import (
	"strings"

	"parley/internal/wrap"
)

// This file finds the code fences of markdown, and prepares code blocks before glamour draws
// them: long lines wrapped with their indentation and a continuation mark, and the block's
// language put on its first line, where layout.go turns it into a label.

// codeMargin is how much narrower than the document a code line must be for glamour to leave
// it whole: its margins and padding, and some room for the indent of a list around it.
const codeMargin = 6

// contMark starts a code line that continues the line above it: the line was too long for
// the screen, and a real new line would read otherwise.
const contMark = contRune + " "

// contRune is contMark's visible character.
const contRune = "↪"

// labelMark starts the line wrapCode puts at the top of a code block with a language;
// layout.go draws that line as the block's label. It is a private-use character, which no
// reply is expected to hold and which the sanitizer would not let through as markup.
const labelMark = "\uE000"

// codeSpace stands for a space inside a code span while glamour wraps the line, which breaks
// at spaces only; layout.go puts the spaces back, so what is copied off the screen is the code
// as written (a no-break space would not paste into a shell).
const codeSpace = "\uE003"

// codeOpen ends the first line of a code block's content and codeClose its last, so that
// layout.go tells glamour's lines of code from its other lines (a list item's, say) without a
// mark on every line, which chroma would draw as a token of its own; both are taken out there.
// At a line's end they change no lexer's reading of its start (a diff's + and -).
const (
	codeOpen  = "\uE001"
	codeClose = "\uE002"
)

// wrapCode prepares the fenced code blocks of text: their long lines wrapped before glamour
// would (glamour starts a wrapped code line at the margin, which loses its indentation), each
// continuation marked; a label line with the block's language at its top, unless the text
// starts inside a block that was opened before it (reopened); and the first and last lines of
// content marked with codeOpen and codeClose. Text is scanned from a line outside any fence,
// as every chunk of Stream starts.
func wrapCode(text string, width int, reopened bool) string {
	b := make([]byte, 0, len(text)+64)
	fence, indent, first, content := "", 0, false, false
	for rest := text; rest != ""; {
		line, after, nl := strings.Cut(rest, "\n")
		rest = after
		switch {
		case fence == "":
			if fence = opensFence(line); fence == "" {
				b = glueCodeSpans(b, line, width)
			} else {
				b = append(b, line...)
				indent = len(line) - len(strings.TrimLeft(line, " "))
				first, content = true, false
				if lang := fenceLanguage(line, fence); lang != "" && nl && !reopened {
					b = append(b, "\n"+strings.Repeat(" ", indent)+labelMark+lang+codeOpen...)
					first, content = false, true
				}
				reopened = false
			}
		case closesFence(line, fence):
			fence = ""
			b = closeCode(b, content)
			b = append(b, line...)
		default:
			// The fence's indent is the list's around it: glamour indents its code as much.
			w := width - codeMargin - indent - len(contMark)
			if w >= 10 && len(line) > w+len(contMark) {
				pieces := markContinued(wrap.Indented(line, w))
				b = append(b, pieces[0]...)
				if first {
					b = append(b, codeOpen...)
				}
				for _, p := range pieces[1:] {
					b = append(append(b, '\n'), p...)
				}
			} else {
				b = append(b, line...)
				if first {
					b = append(b, codeOpen...)
				}
			}
			first, content = false, true
		}
		if nl {
			b = append(b, '\n')
		}
	}
	if fence != "" {
		// A block left open runs to the end of the text.
		nl := len(b) > 0 && b[len(b)-1] == '\n'
		if nl {
			b = b[:len(b)-1]
		}
		if content {
			b = append(b, codeClose...)
		}
		if nl {
			b = append(b, '\n')
		}
	}
	return string(b)
}

// closeCode marks the last line of content written to b, which ends in a newline, with
// codeClose, when the block has content.
func closeCode(b []byte, content bool) []byte {
	if !content || len(b) == 0 || b[len(b)-1] != '\n' {
		return b
	}
	return append(append(b[:len(b)-1], codeClose...), '\n')
}

// markContinued puts contMark after the indentation of every line but the first.
func markContinued(lines []string) []string {
	for i := 1; i < len(lines); i++ {
		body := strings.TrimLeft(lines[i], " ")
		lines[i] = lines[i][:len(lines[i])-len(body)] + contMark + body
	}
	return lines
}

// fenceLanguage returns the language a fence line names ("go" of "```go title"), or "".
func fenceLanguage(line, fence string) string {
	info := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), fence[:1]))
	lang, _, _ := strings.Cut(info, " ")
	if strings.ContainsAny(lang, "{}") {
		return ""
	}
	return lang
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

// glueCodeSpans appends line to b with the spaces inside its code spans replaced by codeSpace,
// so that glamour moves a span that fits on a line to the next one whole instead of breaking it
// inside itself; a span too long for a line keeps its spaces and breaks. An indented line is left as
// it is: it may be an indented code block, whose backticks are text.
func glueCodeSpans(b []byte, line string, width int) []byte {
	if strings.IndexByte(line, '`') < 0 || strings.HasPrefix(line, "    ") {
		return append(b, line...)
	}
	for i := 0; i < len(line); {
		if line[i] != '`' {
			if line[i] == '\\' && i+1 < len(line) {
				b = append(b, line[i], line[i+1])
				i += 2
				continue
			}
			b = append(b, line[i])
			i++
			continue
		}
		n := run(line, i)
		end := closingTicks(line, i+n, n)
		if end < 0 {
			return append(b, line[i:]...)
		}
		span := line[i : end+n]
		if len(span) <= width-codeMargin && strings.IndexByte(span, ' ') >= 0 {
			b = append(b, strings.ReplaceAll(span, " ", codeSpace)...)
		} else {
			b = append(b, span...)
		}
		i = end + n
	}
	return b
}
