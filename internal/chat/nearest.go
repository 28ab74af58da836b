package chat

import "unicode/utf8"

// Nearest returns the name in names that word is most likely a mistyping of, for "did you
// mean …?": the closest within one edit (a character put in, left out, changed, or two
// neighbours swapped) for every four characters of the name, at least one. A word shorter
// than four characters matches nothing, nor does one further from every name: so "hello" is
// not taken for help, nor "research" for search. Of names as close, the first wins.
func Nearest(word string, names []string) (string, bool) {
	if utf8.RuneCountInString(word) < 4 {
		return "", false
	}
	best, bestEdits := "", -1
	for _, name := range names {
		n := []rune(name)
		d := edits([]rune(word), n)
		if d <= max(1, len(n)/4) && (bestEdits < 0 || d < bestEdits) {
			best, bestEdits = name, d
		}
	}
	return best, bestEdits >= 0
}

// edits is the optimal string alignment distance between a and b: the fewest characters put
// in, left out or changed, or neighbours swapped, that make a into b.
func edits(a, b []rune) int {
	// d[i][j] is the distance between a[:i] and b[:j].
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
