package markdown

import "strings"

// This file finds the code blocks of a reply, for copying one of them whole.

// CodeBlock is a fenced code block of a reply: its language and its source, as the model wrote
// it, without the fences (and without the indent of a list around it).
type CodeBlock struct {
	Lang, Code string
}

// CodeBlocks returns the fenced code blocks of text, in order. A block left open at the end
// of the text runs to its end.
func CodeBlocks(text string) []CodeBlock {
	var out []CodeBlock
	var cur *CodeBlock
	var code strings.Builder
	fence, indent := "", 0
	for _, line := range strings.Split(text, "\n") {
		switch {
		case fence == "":
			if fence = opensFence(line); fence != "" {
				indent = len(line) - len(strings.TrimLeft(line, " "))
				cur = &CodeBlock{Lang: fenceLanguage(line, fence)}
				code.Reset()
			}
		case closesFence(line, fence):
			cur.Code = code.String()
			out = append(out, *cur)
			fence, cur = "", nil
		default:
			// Content lines lose up to the fence's indent, as CommonMark reads them.
			n := 0
			for n < indent && n < len(line) && line[n] == ' ' {
				n++
			}
			code.WriteString(line[n:])
			code.WriteByte('\n')
		}
	}
	if cur != nil {
		cur.Code = strings.TrimSuffix(code.String(), "\n")
		out = append(out, *cur)
	}
	return out
}
