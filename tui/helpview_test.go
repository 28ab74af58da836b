package tui

import (
	"strings"
	"testing"
)

// The list of every key (?): esc closes it, typing goes on past it, and on a small screen it
// scrolls so that every section can be read.

// helpPages returns every screen the open help shows from its top to its end, paged with pgdown.
func helpPages(t *testing.T, m Model) []string {
	t.Helper()
	m, _ = step(m, press("home"))
	pages := []string{plain(m)}
	for range 30 {
		m, _ = step(m, press("pgdown"))
		if s := plain(m); s != pages[len(pages)-1] {
			pages = append(pages, s)
			continue
		}
		return pages
	}
	t.Fatal("pgdown never reached the end of the help")
	return nil
}

func TestHelpScrollsAt40x15(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, storedExchanges(1), 40, 15)
	m, _ = step(m, press("?"))
	first := plain(m)
	if len(strings.Split(first, "\n")) != 15 {
		t.Fatalf("the help does not fit 15 rows:\n%s", first)
	}
	pages := helpPages(t, m)
	all := strings.Join(pages, "\n")
	for _, group := range fullKeys(m.keys).FullHelp() {
		for _, b := range group {
			if !strings.Contains(all, b.Help().Key+" "+strings.Fields(b.Help().Desc)[0]) {
				t.Errorf("no page of the help shows %q", b.Help().Key)
			}
		}
	}
	for _, want := range []string{"typing", "selecting replies", "versions", "commands: /new"} {
		if !strings.Contains(all, want) {
			t.Errorf("no page of the help shows %q", want)
		}
	}
	for _, p := range pages {
		for _, l := range strings.Split(p, "\n") {
			if w := len([]rune(l)); w > 40 {
				t.Errorf("line of %d columns: %q", w, l)
			}
		}
	}
	// ↑ and ↓ scroll a line; the input stays on screen throughout. (The pages were read on
	// the same list: back to its top first.)
	m = pressKeys(m, "home", "down")
	if plain(m) == first || !strings.Contains(plain(m), "┃ ") {
		t.Fatalf("↓ did not scroll the help, or hid the input:\n%s", plain(m))
	}
	m, _ = step(m, press("up"))
	if plain(m) != first {
		t.Fatalf("↑ did not scroll back:\n%s", plain(m))
	}
	if t.Failed() {
		t.Fatalf("pages:\n%s", all)
	}
}

func TestEscAndTypingCloseTheHelp(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, storedExchanges(1), 80, 24)
	m = pressKeys(m, "?", "esc")
	if helpOpen(m) || m.focus != focusInput {
		t.Fatalf("esc: help open %v, focus %v; want it closed and nothing else done", helpOpen(m), m.focus)
	}
	m, _ = step(m, press("?"))
	m = typeText(m, "hello")
	if helpOpen(m) || m.input.Value() != "hello" {
		t.Fatalf("typing: help open %v, input %q; want it closed and the text typed", helpOpen(m), m.input.Value())
	}
	if strings.Contains(plain(m), "selecting replies") {
		t.Fatalf("the help still shows:\n%s", plain(m))
	}
}
