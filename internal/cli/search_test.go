package cli

import (
	"slices"
	"testing"

	"parley/history/stored"
)

func TestExcerptsAreBoldOnATerminalAndPlainOtherwise(t *testing.T) {
	t.Parallel()
	excerpt := "…the " + stored.HitStart + "quokka" + stored.HitEnd + "\nsmiles \x1b]0;title\x07at " + stored.HitStart + "Quokkas" + stored.HitEnd
	if got, want := excerptLine(excerpt, true), "…the \x1b[1mquokka\x1b[22m smiles at \x1b[1mQuokkas\x1b[22m"; got != want {
		t.Errorf("on a terminal: %q, want %q", got, want)
	}
	if got, want := excerptLine(excerpt, false), "…the quokka smiles at Quokkas"; got != want {
		t.Errorf("to a pipe: %q, want %q", got, want)
	}
	text, matches := unmark(excerpt)
	if text[matches[0][0]:matches[0][1]] != "quokka" || text[matches[1][0]:matches[1][1]] != "Quokkas" || !slices.Equal(splitMarks("no match"), []string{"no match"}) {
		t.Errorf("unmark: %q %v", text, matches)
	}
}
