package cli

import (
	"slices"
	"strings"
	"testing"

	"parley/history"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

func TestExcerptsAreBoldOnATerminalAndPlainOtherwise(t *testing.T) {
	t.Parallel()
	excerpt := "…the " + history.HitStart + "quokka" + history.HitEnd + "\nsmiles \x1b]0;title\x07at " + history.HitStart + "Quokkas" + history.HitEnd
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

// On a terminal the matches are bold; to a pipe the line is plain text.
func TestSearchBoldsMatchesOnlyOnATerminal(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{})
	u := newUser(t)
	u.run("-p", "where do quokkas live?", "--base-url", srv.URL(), "--model", "m")
	if r := u.onTerminal("search", "quokkas"); r.code != 0 || !strings.Contains(r.stdout, "\x1b[1mquokkas\x1b[22m") {
		t.Errorf("on a terminal: exit %d, %q", r.code, r.stdout)
	}
	if r := u.run("search", "quokkas"); r.code != 0 || strings.Contains(r.stdout, "\x1b") || !strings.Contains(r.stdout, "quokkas") {
		t.Errorf("to a pipe: exit %d, %q", r.code, r.stdout)
	}
}
