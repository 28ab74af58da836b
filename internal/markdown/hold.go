package markdown

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file finds what a growing reply's render holds back: an emphasis or code span opened on
// the line the next delta goes on and not closed yet, which glamour would draw as its raw
// markers (**bold, `code) until the closing ones arrive.

// heldFrom returns where the shown part of a growing text ends: the start of the first emphasis
// (*, **, _, __) or code span (`) its unfinished last line opens and does not close, or
// len(text) when there is none, the last line is finished, or it is inside a code block (fenced
// says so: its markers are code).
func heldFrom(text string, fenced bool) int {
	start := strings.LastIndexByte(text, '\n') + 1
	if fenced || start == len(text) {
		return len(text)
	}
	line := text[start:]
	if t := strings.TrimLeft(line, " "); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
		return len(text) // a fence being opened: its info string is no emphasis
	}
	// open holds the unclosed openers, innermost last.
	var open []opener
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == '\\':
			i += 2
			continue
		case c == '`':
			n := run(line, i)
			end := closingTicks(line, i+n, n)
			if end < 0 {
				return start + heldStart(open, i)
			}
			i = end + n
			continue
		case c == '*' || c == '_':
			n := run(line, i)
			before, after := runeBefore(line, i), runeAfter(line, i+n)
			opens := after != 0 && !unicode.IsSpace(after)
			closes := before != 0 && !unicode.IsSpace(before)
			if c == '_' {
				// An underscore inside a word (snake_case) is no emphasis.
				opens = opens && !isWordRune(before)
				closes = closes && !isWordRune(after)
			}
			switch {
			case closes && len(open) > 0 && open[len(open)-1].ch == c:
				open = closeRun(open[:len(open)-1], open[len(open)-1], n)
			case opens:
				open = append(open, opener{at: i, ch: c, n: n})
			case after == 0:
				// A run the line ends in: it may yet open (the next delta's word) or be a
				// list's bullet; nothing shows it until the next delta says.
				open = append(open, opener{at: i, ch: c, n: n})
			}
			i += n
			continue
		}
		i++
	}
	if len(open) == 0 {
		return len(text)
	}
	return start + open[0].at
}

// closeRun takes a closing run of n markers from the opener o popped off open: a shorter
// closer leaves the rest of the opener open (**a* is still open).
func closeRun(open []opener, o opener, n int) []opener {
	if n < o.n {
		o.n -= n
		return append(open, o)
	}
	return open
}

// opener is an emphasis run that opened and is not closed yet.
type opener struct {
	at int
	ch byte
	n  int
}

// heldStart is where the hold begins when a code span opens at tick: at the first opener
// still open before it, else at the tick.
func heldStart(open []opener, tick int) int {
	if len(open) > 0 {
		return open[0].at
	}
	return tick
}

// run is how many times line[i] repeats from i.
func run(line string, i int) int {
	n := 0
	for i+n < len(line) && line[i+n] == line[i] {
		n++
	}
	return n
}

// closingTicks returns where a run of exactly n backticks starts in line from i, or -1.
func closingTicks(line string, i, n int) int {
	for i < len(line) {
		j := strings.IndexByte(line[i:], '`')
		if j < 0 {
			return -1
		}
		j += i
		if m := run(line, j); m == n {
			return j
		} else {
			i = j + m
		}
	}
	return -1
}

func runeBefore(s string, i int) rune {
	if i == 0 {
		return 0
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return r
}

func runeAfter(s string, i int) rune {
	if i >= len(s) {
		return 0
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
