package markdown

import (
	"regexp"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// This file lays out glamour's lines where glamour does not: a code block's language drawn as
// its label, continued code lines marked, tables as wide as their content; lists.go makes
// wrapped list items hang under their text.

// lay finishes glamour's lines of a document rendered at width.
func (md *Renderer) lay(lines []string, width int) []string {
	var code []bool
	in := false
	for i, l := range lines {
		if strings.Contains(l, codeSpace) {
			l = strings.ReplaceAll(l, codeSpace, " ")
			lines[i] = l
		}
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
			if !strings.Contains(l, labelMark) { // labelCode draws the label's line
				l = md.frame(l)
			}
			lines[i] = md.markContinuation(l)
		}
		if closed {
			in = false
		}
	}
	md.labelCode(lines)
	fitTables(lines)
	return hangLists(lines, code, width-2)
}

// labelStyle draws a code block's language; frameStyle its frame and the mark of a continued
// line.
func labelStyle(dark bool) lipgloss.Style { return frameStyle(dark).Bold(true) }
func frameStyle(dark bool) lipgloss.Style { return lipgloss.NewStyle().Foreground(frameColor(dark)) }

// frameBar and contDrawn are the frame's bar and the continuation mark drawn, light and dark:
// drawn once, not on every code line.
var (
	frameBar  = [2]string{frameStyle(false).Render("│"), frameStyle(true).Render("│")}
	contDrawn = [2]string{frameStyle(false).Render(contRune), frameStyle(true).Render(contRune)}
)

// shade indexes frameBar and contDrawn.
func shade(dark bool) int {
	if dark {
		return 1
	}
	return 0
}

// labelCode draws the lines wrapCode marked as code blocks' labels: the top of the block's frame
// with the language on it ("╭─ go"), where the frame's bar runs down the code lines below.
func (md *Renderer) labelCode(lines []string) {
	for i, l := range lines {
		if !strings.Contains(l, labelMark) {
			continue
		}
		plain := ansi.Strip(l)
		at := strings.Index(plain, labelMark)
		lang := strings.TrimSpace(plain[at+len(labelMark):])
		lead := strings.TrimRight(plain[:at], " ")
		if bar := ansi.StringWidth(plain[:at]) - 2; bar >= ansi.StringWidth(lead) {
			lines[i] = strings.Repeat(" ", bar) + frameStyle(md.dark).Render("╭─") + " " + labelStyle(md.dark).Render(lang)
		} else {
			lines[i] = plain[:at] + labelStyle(md.dark).Render(lang)
		}
	}
}

// frame draws a code line's part of its block's frame: a bar in the first column of the code
// margin glamour leaves, which is where its first styled space is (the document's margin and a
// list's indent before it are plain).
func (md *Renderer) frame(line string) string {
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\x1b':
			j := strings.IndexByte(line[i:], 'm')
			if j < 0 {
				return line
			}
			j += i + 1
			// The styled space: the sequences before it and the space itself.
			for j < len(line) && line[j] == '\x1b' {
				k := strings.IndexByte(line[j:], 'm')
				if k < 0 {
					return line
				}
				j += k + 1
			}
			if j >= len(line) || line[j] != ' ' {
				return line
			}
			return line[:i] + frameBar[shade(md.dark)] + line[j+1:]
		case c == ' ':
		default:
			return line // a code line whose margin is not glamour's
		}
	}
	return line
}

// contStyled matches contMark's first character as chroma drew it, with the styles around it:
// a character it does not know, drawn as an error.
var contStyled = regexp.MustCompile("(\x1b\\[[0-9;]*m)*" + contRune + "(\x1b\\[[0-9;]*m)*")

// markContinuation draws the mark wrapCode put on a continued code line dim, not as chroma's
// error.
func (md *Renderer) markContinuation(line string) string {
	if !strings.Contains(line, contRune) {
		return line
	}
	return contStyled.ReplaceAllLiteralString(line, contDrawn[shade(md.dark)])
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
