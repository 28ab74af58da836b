// Package wrap wraps text that must keep its shape, such as an operator's message or code:
// a wrapped line keeps the indentation of the line it continues.
package wrap

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Lines wraps text to width, line by line; a wrapped line keeps its indentation on every
// line it continues on.
func Lines(text string, width int) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		out = append(out, Indented(line, width)...)
	}
	return out
}

// Indented wraps one line to width, repeating its leading white space on the lines it
// continues on. Tabs become four spaces: a terminal would put them at its own tab stops. An
// indent of more than half the width is not repeated: it would leave too little room.
func Indented(line string, width int) []string {
	line = strings.ReplaceAll(line, "\t", "    ")
	if width < 1 || ansi.StringWidth(line) <= width {
		return []string{line}
	}
	body := strings.TrimLeft(line, " ")
	indent := line[:len(line)-len(body)]
	if len(indent) > width/2 {
		indent = ""
		body = line
	}
	pieces := strings.Split(ansi.Wrap(body, width-len(indent), ""), "\n")
	for i := range pieces {
		pieces[i] = indent + pieces[i]
	}
	return pieces
}
