package markdown

import (
	"strings"

	"parley/tui/wrap"
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

// codeMark ends every line of code wrapCode writes, so that layout.go tells glamour's lines of
// code from its other lines; it is taken out there. At the end, it changes no lexer's reading
// of the line's start (a diff's + and -).
const codeMark = "\uE001"

// wrapCode prepares the fenced code blocks of text: their long lines wrapped before glamour
// would (glamour starts a wrapped code line at the margin, which loses its indentation), each
// continuation marked, each ending in codeMark; and a label line with the block's language at its top, unless the text
// starts inside a block that was opened before it (reopened). Text is scanned from a line
// outside any fence, as every chunk of Stream starts.
func wrapCode(text string, width int, reopened bool) string {
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
				b.WriteString(line)
				if lang := fenceLanguage(line, fence); lang != "" && nl && !reopened {
					b.WriteString("\n" + strings.Repeat(" ", indent) + labelMark + lang)
				}
				reopened = false
			} else {
				b.WriteString(line)
			}
		case closesFence(line, fence):
			fence = ""
			b.WriteString(line)
		default:
			// The fence's indent is the list's around it: glamour indents its code as much.
			w := width - codeMargin - indent - len(contMark)
			if w >= 10 && len(line) > w+len(contMark) {
				b.WriteString(strings.Join(markContinued(wrap.Indented(line, w)), codeMark+"\n"))
			} else {
				b.WriteString(line)
			}
			b.WriteString(codeMark)
		}
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
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
