package markdown

import (
	"sort"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// This file prepares a reply's markdown for glamour where glamour would lose what the model
// wrote: raw HTML, which glamour strips (html.go), and the break between two paragraphs of one
// list item, which glamour drops, gluing "Install Go" and "Download it" into "Install
// GoDownload it". One goldmark parse finds both, only for text that can hold either.

// parser parses markdown as glamour's renderer does (GFM and definition lists), so that it
// finds what glamour would find.
var parser = goldmark.New(goldmark.WithExtensions(extension.GFM, extension.DefinitionList)).Parser()

// prepare returns src with its raw HTML made literal (an inline tag's markup characters
// backslash-escaped, an HTML block made a code block of HTML) and each list item's paragraphs
// joined into one, their lines kept. Code spans, code blocks and autolinks are left as they
// are. Text that can hold neither is returned at the cost of a scan.
func prepare(src string) string {
	if !mayNeedEdits(src) {
		return src
	}
	b := []byte(src)
	var eds []edit
	doc := parser.Parse(text.NewReader(b))
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.RawHTML:
			for i := range n.Segments.Len() {
				s := n.Segments.At(i)
				eds = append(eds, edit{at: s.Start, end: s.Stop, escape: true})
			}
			return ast.WalkSkipChildren, nil
		case *ast.HTMLBlock:
			eds = append(eds, blockEdits(n, b)...)
			return ast.WalkSkipChildren, nil
		case *ast.ListItem:
			eds = append(eds, joinParagraphs(n, b)...)
		}
		return ast.WalkContinue, nil
	})
	if len(eds) == 0 {
		return src
	}
	return apply(src, eds)
}

// joinParagraphs removes the blank lines between two paragraphs of list item n that follow
// each other, making them one paragraph whose lines glamour keeps apart.
func joinParagraphs(n *ast.ListItem, src []byte) []edit {
	var eds []edit
	for c := n.FirstChild(); c != nil && c.NextSibling() != nil; c = c.NextSibling() {
		next := c.NextSibling()
		if c.Kind() != ast.KindParagraph || next.Kind() != ast.KindParagraph || c.Lines().Len() == 0 || next.Lines().Len() == 0 {
			continue
		}
		end := c.Lines().At(c.Lines().Len() - 1).Stop
		for end < len(src) && src[end-1] != '\n' {
			end++ // goldmark's last line of a paragraph stops before its line end
		}
		start := lineStart(src, next.Lines().At(0).Start)
		if end < start && strings.Trim(string(src[end:start]), " \t\n>") == "" {
			eds = append(eds, edit{at: end, end: start})
		}
	}
	return eds
}

// mayNeedEdits reports whether src can hold what prepare changes: a '<' outside its fenced
// code blocks, or, after a list item, an indented line right after a blank one (a list item's
// second paragraph). Only then is it parsed; code full of generics costs a scan of its lines.
func mayNeedEdits(src string) bool {
	lt, list := strings.IndexByte(src, '<') >= 0, false
	fence, blank := "", false
	for rest := src; rest != ""; {
		line, after, _ := strings.Cut(rest, "\n")
		rest = after
		switch {
		case fence == "":
			if fence = opensFence(line); fence != "" {
				break
			}
			if lt && strings.IndexByte(line, '<') >= 0 {
				return true
			}
			trimmed := strings.TrimLeft(line, " ")
			if list && blank && len(line)-len(trimmed) >= 2 && trimmed != "" {
				return true
			}
			list = list || listItem(trimmed)
			blank = trimmed == ""
		case closesFence(line, fence):
			fence = ""
		}
	}
	return false
}

// edit is one change prepare makes: the markup characters of src[at:end] escaped (escape), or
// src[at:end] replaced by insert (put before src[at] where end is at).
type edit struct {
	at, end int
	insert  string
	escape  bool
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
		if !e.escape {
			b.WriteString(e.insert)
			pos = e.end
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
