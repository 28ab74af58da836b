package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/markdown"
	"parley/internal/markdown/markdowntest"
)

// No surprises on a narrow screen: help, notices and wrapped code fit 40 columns whole.

func TestNoticesAndHelpFit40Columns(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, storedExchanges(1), 40, 40)
	m, _ = step(m, press("?"))
	s := plain(m)
	// The list scrolls where it does not fit: every key is on one of its pages.
	pages := s
	for range 10 {
		m, _ = step(m, press("pgdown"))
		pages += plain(m)
	}
	for _, group := range fullKeys(m.keys).FullHelp() {
		for _, b := range group {
			if !strings.Contains(pages, b.Help().Key+" "+strings.Fields(b.Help().Desc)[0]) {
				t.Errorf("the full help at 40 columns lacks %q", b.Help().Key)
			}
		}
	}
	// The session's name in the header may be cut; nothing from the input down is.
	if below := s[strings.Index(s, "┃"):]; strings.Contains(strings.ReplaceAll(below, "/demo …", ""), "…") ||
		!strings.Contains(below, "? lists keys") {
		t.Errorf("something was cut:\n%s", below)
	}
	for _, l := range strings.Split(s, "\n") {
		if w := len([]rune(l)); w > 40 {
			t.Errorf("line of %d columns: %q", w, l)
		}
	}
	m, _ = step(m, press("?"))
	m, _ = step(m, noticeMsg{text: "usage: /demo overload [N] | ratelimit DURATION | drop N | badkey | context N [FLAVOUR] | off | status", err: true})
	if s := plain(m); !strings.Contains(strings.Join(strings.Fields(s), " "), "| off | status") {
		t.Fatalf("the notice was cut:\n%s", s)
	}
}

func TestWrappedCodeKeepsItsIndentation(t *testing.T) {
	t.Parallel()
	long := "fmt.Println(\"a string long enough to be wrapped at forty columns, and then some\")"
	text := "Here:\n\n```go\nfunc main() {\n\tif true {\n\t\t" + long + "\n\t}\n}\n```\n"
	var md markdown.Renderer
	lines := markdowntest.TrimBlank(md.Render(text, 40, true))
	var parts []string
	for _, l := range lines {
		if p := strings.TrimRight(ansi.Strip(l), " "); strings.Contains(p, "fmt.Println") || strings.Contains(p, "then some") ||
			strings.Contains(p, "wrapped at") {
			parts = append(parts, p)
		}
	}
	if len(parts) < 2 {
		t.Fatalf("the long line was not wrapped: %q", lines)
	}
	indent := len(parts[0]) - len(strings.TrimLeft(parts[0], " "))
	for _, p := range parts[1:] {
		if got := len(p) - len(strings.TrimLeft(p, " ")); got < indent {
			t.Fatalf("a continuation starts at column %d, the line at %d:\n%s", got, indent, strings.Join(parts, "\n"))
		}
	}
	for _, l := range lines {
		if w := len([]rune(ansi.Strip(l))); w > 40 {
			t.Fatalf("line of %d columns: %q", w, ansi.Strip(l))
		}
	}
	// An operator's pasted code keeps its indentation too.
	m := loadedModel(t, []stored.Message{{ID: 1, Role: chat.RoleUser, Content: "    " + long}}, 40, 20)
	for _, l := range strings.Split(plain(m), "\n") {
		if strings.Contains(l, "then some") && !strings.HasPrefix(l, "        ") {
			t.Fatalf("the wrapped line lost its indentation: %q\n%s", l, plain(m))
		}
	}
}
