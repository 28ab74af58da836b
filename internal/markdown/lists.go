package markdown

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// This file re-wraps glamour's list items, which start a wrapped line under the bullet, so that
// it hangs under the item's text, reading each line's styles only as far as its indent and
// mark.

// listMark matches the start of a list item's first line as glamour draws it: its indent,
// then a bullet, a number or a task's box.
var listMark = regexp.MustCompile(`^( *)(• |\d{1,9}\. |\[[ ✓xX]\] )`)

// hangLists wraps list items again so that their wrapped lines hang under the item's text, not
// under its bullet, within limit columns. glamour starts them at the bullet. code says which
// lines are code (nil: none), which is never a list.
func hangLists(lines []string, code []bool, limit int) []string {
	isCode := func(i int) bool { return code != nil && code[i] }
	var out []string
	for i := 0; i < len(lines); i++ {
		var m []string
		if mayStartItem(lines[i]) && !isCode(i) {
			m = listMark.FindStringSubmatch(visiblePrefix(lines[i], 16))
		}
		end := i + 1
		if m != nil {
			for end < len(lines) && !isCode(end) && continues(lines[end], len(m[1])) {
				end++
			}
		}
		if end == i+1 {
			if out != nil {
				out = append(out, lines[i])
			}
			continue
		}
		if out == nil {
			out = append(make([]string, 0, len(lines)+4), lines[:i]...)
		}
		indent, mark := len(m[1]), utf8.RuneCountInString(m[2])
		head, body := splitVisible(lines[i], indent+mark)
		body = trimPadding(body)
		for _, l := range lines[i+1 : end] {
			_, rest := splitVisible(l, indent)
			body += " " + trimSpacesBefore(trimPadding(rest))
		}
		for k, l := range strings.Split(ansi.Wordwrap(body, max(limit-indent-mark, 10), ""), "\n") {
			if k == 0 {
				out = append(out, head+l)
			} else {
				out = append(out, strings.Repeat(" ", indent+mark)+strings.TrimLeft(l, " "))
			}
		}
		i = end - 1
	}
	if out == nil {
		return lines
	}
	return out
}

// mayStartItem reports, without stripping the line's styles, whether its first visible
// character could start a list item's mark: a bullet, a digit or a task's box. Most lines of a
// reply cannot, and cost no more than this.
func mayStartItem(line string) bool {
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == ' ':
		case c == '\x1b':
			i = skipEscape(line, i) - 1
		default:
			return c == '[' || (c >= '0' && c <= '9') || strings.HasPrefix(line[i:], "•")
		}
	}
	return false
}

// continues reports whether line goes on with the text of a list item whose bullet is indent
// columns in: it starts with a word at that very column.
func continues(line string, indent int) bool {
	plain := visiblePrefix(line, indent+16)
	if len(plain) <= indent || strings.TrimLeft(plain[:indent], " ") != "" {
		return false
	}
	rest := plain[indent:]
	if listMark.MatchString(rest) {
		return false
	}
	r := []rune(rest[:min(len(rest), 4)])
	return len(r) > 0 && !strings.ContainsRune(" │─┼", r[0])
}

// splitVisible splits a styled line after its first n visible characters, which must each be
// one column wide (the indent and mark of a list item are). It reads only that far.
func splitVisible(line string, n int) (head, rest string) {
	i := 0
	for seen := 0; i < len(line) && seen < n; {
		if line[i] == '\x1b' {
			i = skipEscape(line, i)
			continue
		}
		_, size := utf8.DecodeRuneInString(line[i:])
		i += size
		seen++
	}
	return line[:i], line[i:]
}

// visiblePrefix returns the first n visible characters of a styled line, without its styles.
func visiblePrefix(line string, n int) string {
	var b strings.Builder
	for i, seen := 0, 0; i < len(line) && seen < n; {
		if line[i] == '\x1b' {
			i = skipEscape(line, i)
			continue
		}
		r, size := utf8.DecodeRuneInString(line[i:])
		b.WriteRune(r)
		i += size
		seen++
	}
	return b.String()
}

// skipEscape returns the index after the escape sequence at line[i]: a CSI up to its final
// byte, or the escape and the byte after it.
func skipEscape(line string, i int) int {
	i++
	if i < len(line) && line[i] == '[' {
		for i++; i < len(line) && (line[i] < 0x40 || line[i] > 0x7e); i++ {
		}
	}
	return min(i+1, len(line))
}

// trimSpacesBefore drops the spaces before a styled line's first visible character, keeping its
// styles.
func trimSpacesBefore(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\x1b':
			j := skipEscape(s, i)
			b.WriteString(s[i:j])
			i = j
		case s[i] == ' ':
			i++
		default:
			b.WriteString(s[i:])
			return b.String()
		}
	}
	return b.String()
}

// trimPadding drops the blank columns glamour pads a line with: spaces, bare or each in a
// style of its own and reset. It reads the line from its end, no further than the padding.
func trimPadding(s string) string {
	for {
		s = strings.TrimRight(s, " ")
		r, ok := strings.CutSuffix(s, "\x1b[m")
		if !ok {
			if r, ok = strings.CutSuffix(s, "\x1b[0m"); !ok {
				return s
			}
		}
		u := strings.TrimRight(r, " ")
		j := strings.LastIndex(u, "\x1b[")
		sgr := j >= 0 && strings.HasSuffix(u, "m") && strings.Trim(u[j+2:len(u)-1], "0123456789;") == ""
		switch {
		case sgr:
			s = u[:j] // spaces, or nothing, in a style of their own
		case len(u) < len(r):
			s = u
		default:
			return s // a reset after text: the text's own
		}
	}
}
