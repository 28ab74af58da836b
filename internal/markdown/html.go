package markdown

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// This file keeps raw HTML on screen. glamour strips every tag it finds outside code, so a
// reply's List<String>, Vec<T>, x<y>z or "the <details> tag" would lose words; prepare
// (source.go) escapes the raw HTML goldmark finds before glamour sees it, so it shows as it
// was written.

// blockEdits shows an HTML block as written: at the top level, as a code block of HTML (its
// lines as they are, highlighted); inside a list or a quote, whose prefixes a fence would need
// on every line, escaped like inline HTML.
func blockEdits(n *ast.HTMLBlock, src []byte) []edit {
	lines := n.Lines()
	var segs []text.Segment
	for i := range lines.Len() {
		segs = append(segs, lines.At(i))
	}
	if n.HasClosure() {
		segs = append(segs, n.ClosureLine)
	}
	if len(segs) == 0 {
		return nil
	}
	if n.Parent() == nil || n.Parent().Kind() != ast.KindDocument {
		eds := make([]edit, len(segs))
		for i, s := range segs {
			eds[i] = edit{at: s.Start, end: s.Stop, escape: true}
		}
		return eds
	}
	first, last := lineStart(src, segs[0].Start), segs[len(segs)-1].Stop
	fence := strings.Repeat("`", max(3, longestRun(src[first:last], '`')+1))
	closing := fence + "\n"
	if last == 0 || src[last-1] != '\n' {
		closing = "\n" + closing
	}
	return []edit{{at: first, end: first, insert: fence + "html\n"}, {at: last, end: last, insert: closing}}
}

// longestRun returns the length of the longest run of c in b.
func longestRun(b []byte, c byte) int {
	best, n := 0, 0
	for _, x := range b {
		if x == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}
