package inputbox

import (
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// This file finds the grapheme clusters of a line, what a reader sees as one character (an
// emoji joined with ZWJ, a letter with its accents, a flag): the cursor moves over them and
// deletes them whole, never landing inside one.

// clusterReach is how far around the cursor a line is segmented: no cluster a person types is
// longer, and a long line costs a key no more than a short one.
const clusterReach = 64

// clusterEnd returns the end of the cluster that starts at col of l.
func clusterEnd(l []rune, col int) int {
	if col >= len(l) {
		return len(l)
	}
	start := clusterSafe(l, col)
	rest := string(l[start:min(len(l), col+clusterReach)])
	pos, state := start, -1
	for rest != "" {
		var c string
		c, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
		pos += utf8.RuneCountInString(c)
		if pos > col {
			return pos
		}
	}
	return min(len(l), col+1)
}

// clusterStart returns the start of the cluster that ends at col of l.
func clusterStart(l []rune, col int) int {
	if col <= 0 {
		return 0
	}
	start := clusterSafe(l, col-1)
	rest := string(l[start:col])
	pos, last, state := start, start, -1
	for rest != "" {
		var c string
		c, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
		last = pos
		pos += utf8.RuneCountInString(c)
	}
	return last
}

// clusterSafe returns a place at or before col, at most about clusterReach runes back, where
// a cluster starts: a rune that extends none before it.
func clusterSafe(l []rune, col int) int {
	start := max(0, col-clusterReach)
	for start > 0 && (extends(l[start]) || l[start-1] == '\u200d') {
		start--
	}
	return start
}

// extends reports whether r joins the rune before it in a cluster: a mark, a joiner, a
// variation selector or an emoji's skin tone.
func extends(r rune) bool {
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc) || r == '\u200d' ||
		(r >= '\ufe00' && r <= '\ufe0f') || (r >= 0x1f3fb && r <= 0x1f3ff) || (r >= 0xe0020 && r <= 0xe007f)
}
