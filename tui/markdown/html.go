package markdown

import (
	"sort"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// This file keeps raw HTML on screen. glamour strips every tag it finds outside code, so a
// reply's List<String>, Vec<T>, x<y>z or "the <details> tag" would lose words; here the raw
// HTML goldmark finds is backslash-escaped before glamour sees it, and shows as it was written.

// htmlParser parses markdown as glamour's renderer does (GFM and definition lists), so that
// it finds the raw HTML glamour would find.
var htmlParser = goldmark.New(goldmark.WithExtensions(extension.GFM, extension.DefinitionList)).Parser()

// escapeHTML returns src with its raw HTML made literal: an inline tag's markup characters are
// backslash-escaped, and an HTML block becomes a code block of HTML (blockEdits). Code spans,
// code blocks and autolinks are left as they are. Text without a '<' outside code blocks is
// returned at the cost of a scan.
func escapeHTML(src string) string {
	if !ltOutsideFences(src) {
		return src
	}
	b := []byte(src)
	var eds []edit
	doc := htmlParser.Parse(text.NewReader(b))
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.RawHTML:
			for i := range n.Segments.Len() {
				s := n.Segments.At(i)
				eds = append(eds, edit{at: s.Start, end: s.Stop})
			}
			return ast.WalkSkipChildren, nil
		case *ast.HTMLBlock:
			eds = append(eds, blockEdits(n, b)...)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	if len(eds) == 0 {
		return src
	}
	return apply(src, eds)
}

// ltOutsideFences reports whether src has a '<' outside its fenced code blocks: only then can
// it hold raw HTML, and only then is it parsed. Code full of generics costs a scan of its lines.
func ltOutsideFences(src string) bool {
	if strings.IndexByte(src, '<') < 0 {
		return false
	}
	fence := ""
	for rest := src; rest != ""; {
		line, after, _ := strings.Cut(rest, "\n")
		rest = after
		switch {
		case fence == "":
			if fence = opensFence(line); fence == "" && strings.IndexByte(line, '<') >= 0 {
				return true
			}
		case closesFence(line, fence):
			fence = ""
		}
	}
	return false
}

// edit is one change escapeHTML makes: the markup characters of src[at:end] escaped, or, where end
// is at, insert put before src[at].
type edit struct {
	at, end int
	insert  string
}

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
			eds[i] = edit{at: s.Start, end: s.Stop}
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

// apply makes the edits to src, in order of position.
func apply(src string, eds []edit) string {
	// At one position an insertion goes before the text it precedes.
	sort.SliceStable(eds, func(i, j int) bool {
		if eds[i].at != eds[j].at {
			return eds[i].at < eds[j].at
		}
		return eds[i].end == eds[i].at && eds[j].end != eds[j].at
	})
	var b strings.Builder
	b.Grow(len(src) + len(src)/8)
	pos := 0
	for _, e := range eds {
		if e.at < pos {
			continue // an overlap: the text is already written
		}
		b.WriteString(src[pos:e.at])
		pos = e.at
		if e.end == e.at {
			b.WriteString(e.insert)
			continue
		}
		for i := e.at; i < e.end; i++ {
			if c := src[i]; c < 0x80 && strings.IndexByte(htmlMarkup, c) >= 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(src[i])
		}
		pos = e.end
	}
	b.WriteString(src[pos:])
	return b.String()
}

// htmlMarkup is what is escaped in raw HTML: what could start markup, of the characters
// glamour shows without their backslash when escaped (not all of CommonMark's are).
const htmlMarkup = "\\`*_[]<"

// lineStart returns the start of the line holding src[i].
func lineStart(src []byte, i int) int {
	for i > 0 && src[i-1] != '\n' {
		i--
	}
	return i
}
