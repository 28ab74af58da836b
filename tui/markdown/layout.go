package markdown

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// This file lays out glamour's lines where glamour does not: a code block's language drawn as
// its label, tables as wide as their content, and wrapped list items hanging under their text.

// lay finishes glamour's lines of a document rendered at width.
func (md *Renderer) lay(lines []string, width int) []string {
	var code []bool
	in := false
	for i, l := range lines {
		open, closed := strings.Contains(l, codeOpen), strings.Contains(l, codeClose)
		if open {
			in = true
			l = strings.ReplaceAll(l, codeOpen, " ") // the column glamour padded for it
		}
		if in {
			if code == nil {
				code = make([]bool, len(lines))
			}
			code[i] = true
			if closed {
				l = strings.ReplaceAll(l, codeClose, " ")
			}
			lines[i] = markContinuation(l)
		}
		if closed {
			in = false
		}
	}
	md.labelCode(lines)
	fitTables(lines)
	return hangLists(lines, code, width-2)
}

// labelStyle draws a code block's language.
var labelStyle = lipgloss.NewStyle().Foreground(lipgloss.Color("244")).Italic(true)

// labelCode draws the lines wrapCode marked as code blocks' labels: the language, dim.
func (md *Renderer) labelCode(lines []string) {
	for i, l := range lines {
		if !strings.Contains(l, labelMark) {
			continue
		}
		plain := ansi.Strip(l)
		at := strings.Index(plain, labelMark)
		lang := strings.TrimSpace(plain[at+len(labelMark):])
		lines[i] = plain[:at] + labelStyle.Render(lang)
	}
}

// contStyled matches contMark's first character as chroma drew it, with the styles around it:
// a character it does not know, drawn as an error.
var contStyled = regexp.MustCompile("(\x1b\\[[0-9;]*m)*" + contRune + "(\x1b\\[[0-9;]*m)*")

// markContinuation draws the mark wrapCode put on a continued code line dim, not as chroma's
// error.
func markContinuation(line string) string {
	if !strings.Contains(line, contRune) {
		return line
	}
	return contStyled.ReplaceAllLiteralString(line, labelStyle.Render(contRune))
}

// fitTables narrows glamour's tables, which fill the width, to their content: each column
// keeps one space of padding on either side of its widest cell. A table is found by the line
// under its head (─ runs joined by ┼) and the rows above and below it that have a │ on every
// joint.
func fitTables(lines []string) {
	for i := 0; i < len(lines); i++ {
		if !strings.Contains(lines[i], "┼") {
			continue
		}
		cols := separatorColumns(ansi.Strip(lines[i]))
		if cols == nil {
			continue
		}
		top, end := i, i+1
		for top > 0 && isRow(lines[top-1], cols) {
			top--
		}
		for end < len(lines) && isRow(lines[end], cols) {
			end++
		}
		cut := slack(lines[top:end], i-top, cols)
		for k := top; k < end; k++ {
			lines[k] = narrow(lines[k], cols, cut)
		}
		i = end - 1
	}
}

// span is the columns [from, to) of a table's column, its padding included.
type span struct{ from, to int }

// separatorColumns returns the columns of a table's head separator ("  ───┼───┼───"), nil
// when line is not one.
func separatorColumns(line string) []span {
	body := strings.TrimLeft(line, " ")
	body = strings.TrimRight(body, " ")
	if !strings.HasPrefix(body, "─") || !strings.HasSuffix(body, "─") || strings.Trim(body, "─┼") != "" {
		return nil
	}
	var cols []span
	at := len(line) - len(strings.TrimLeft(line, " "))
	for _, run := range strings.Split(body, "┼") {
		n := ansi.StringWidth(run)
		cols = append(cols, span{at, at + n})
		at += n + 1
	}
	if len(cols) < 2 {
		return nil
	}
	return cols
}

// isRow reports whether line has a │ at every joint between cols.
func isRow(line string, cols []span) bool {
	plain := ansi.Strip(line)
	for _, c := range cols[:len(cols)-1] {
		if ansi.Cut(plain, c.to, c.to+1) != "│" {
			return false
		}
	}
	return !strings.Contains(plain, "┼")
}

// slack returns, per column, how many columns of blank can go from its start and its end in
// every row: all but one of the spaces the fullest row leaves there. sep is the separator's row.
func slack(rows []string, sep int, cols []span) []span {
	cut := make([]span, len(cols))
	for j := range cut {
		cut[j] = span{-1, -1}
	}
	for r, row := range rows {
		if r == sep {
			continue
		}
		plain := ansi.Strip(row)
		for j, c := range cols {
			cell := ansi.Cut(plain, c.from, c.to)
			body := strings.TrimLeft(cell, " ")
			if strings.TrimSpace(body) == "" {
				continue // an empty cell does not say how wide the column must be
			}
			lead := ansi.StringWidth(cell) - ansi.StringWidth(body)
			trail := c.to - c.from - lead - ansi.StringWidth(strings.TrimRight(body, " "))
			cut[j] = span{least(cut[j].from, lead-1), least(cut[j].to, trail-1)}
		}
	}
	for j := range cut {
		cut[j] = span{max(cut[j].from, 0), max(cut[j].to, 0)}
	}
	return cut
}

// least is the smaller of a and b, where a of -1 is none yet.
func least(a, b int) int {
	if a < 0 {
		return b
	}
	return min(a, b)
}

// narrow cuts from each column of a table's line the blank columns cut says.
func narrow(line string, cols []span, cut []span) string {
	var b strings.Builder
	b.WriteString(ansi.Cut(line, 0, cols[0].from))
	for j, c := range cols {
		b.WriteString(ansi.Cut(line, c.from+cut[j].from, c.to-cut[j].to))
		if j < len(cols)-1 {
			b.WriteString(ansi.Cut(line, c.to, c.to+1))
		}
	}
	return strings.TrimRight(b.String(), " ")
}

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
