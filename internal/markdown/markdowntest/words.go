// Package markdowntest holds what tests of rendered replies share: the corpus of replies with
// generics, templates, comparisons and HTML, the demo endpoint's reply as a run receives it,
// the check that every word of a reply is on screen, and its lines without the blank ones
// around them.
package markdowntest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Corpus returns the replies of the corpus, by file name; dir is the markdown package's
// testdata/corpus as the caller's test finds it.
func Corpus(t testing.TB, dir string) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus in %s: %v", dir, err)
	}
	docs := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs[filepath.Base(p)] = string(b)
	}
	return docs
}

// wordRe is what counts as a word: letters, digits and underscores.
var wordRe = regexp.MustCompile(`[\p{L}\p{N}_]+`)

// Words returns the words of s.
func Words(s string) []string { return wordRe.FindAllString(s, -1) }

// Unseen returns the words of src that screen, plain text, does not show as often as src has
// them. The screen is read line by line, a table's cells down each column; a word wrapped
// across two lines (a token longer than the line, a narrow cell) counts as the last word of
// one line joined to the first of the next. Words glued together on one line do not count:
// "GoDownload" shows neither "Go" nor "Download".
func Unseen(src, screen string) []string {
	shown := map[string]int{}
	var prev []string
	read := func(seg string) {
		ws := Words(seg)
		for _, w := range ws {
			shown[w]++
		}
		if len(prev) > 0 && len(ws) > 0 {
			shown[prev[len(prev)-1]+ws[0]]++
		}
		if len(ws) > 0 {
			prev = ws
		}
	}
	var cols []string
	flush := func() {
		for _, c := range cols {
			for _, line := range strings.Split(c, "\n") {
				read(line)
			}
		}
		cols = cols[:0]
	}
	for _, l := range strings.Split(screen, "\n") {
		if !strings.Contains(l, "│") || strings.HasPrefix(strings.TrimLeft(l, " ▌"), "│") {
			flush()
			read(l) // a quote's bar leads its line; a table's bars stand between cells
			continue
		}
		for j, cell := range strings.Split(l, "│") {
			if j == len(cols) {
				cols = append(cols, "")
			}
			cols[j] += cell + "\n"
		}
	}
	flush()
	want := map[string]int{}
	for _, w := range Words(src) {
		want[w]++
	}
	var missing []string
	for w, n := range want {
		if shown[w] < n {
			missing = append(missing, w)
		}
	}
	return missing
}
