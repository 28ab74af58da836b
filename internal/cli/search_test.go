package cli

import (
	"fmt"
	"slices"
	"strings"
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

// On a terminal the matches are bold; to a pipe the line is plain text.
func TestSearchBoldsMatchesOnlyOnATerminal(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	u.run("-p", "where do quokkas live?", "--base-url", srv.URL(), "--model", "m")
	if r := u.onTerminal("search", "quokkas"); r.code != 0 || !strings.Contains(r.stdout, "\x1b[1mquokkas\x1b[22m") {
		t.Errorf("on a terminal: exit %d, %q", r.code, r.stdout)
	}
	if r := u.run("search", "quokkas"); r.code != 0 || strings.Contains(r.stdout, "\x1b") || !strings.Contains(r.stdout, "quokkas") {
		t.Errorf("to a pipe: exit %d, %q", r.code, r.stdout)
	}
}

// Like grep, a search that finds nothing exits 1, saying so, and --json prints an empty list;
// one that stops at --limit says how many more there are.
func TestSearchSaysWhatItLeftOut(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	for i := range 5 {
		u.run("-p", fmt.Sprintf("quokka number %d", i), "--base-url", srv.URL(), "--model", "m")
	}
	if r := u.run("search", "wombat"); r.code != 1 || r.stdout != "" || r.stderr != "parley: no matches\n" {
		t.Errorf("no match: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := u.run("search", "wombat", "--json"); r.code != 1 || r.stdout != "[]\n" {
		t.Errorf("no match, --json: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// Each question, and the demo's reply quoting it: ten messages.
	r := u.run("search", "quokka", "--limit", "3")
	if r.code != 0 || strings.Count(r.stdout, "\n") != 3 || r.stderr != "… 7 more — --limit 10 to see them\n" {
		t.Errorf("--limit 3: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := u.run("search", "quokka", "--limit", "10", "--json"); r.code != 0 || len(decode[[]searchJSON](t, r.stdout)) != 10 || r.stderr != "" {
		t.Errorf("--limit 10: exit %d, stderr %q", r.code, r.stderr)
	}
}
