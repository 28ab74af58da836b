package slashmenu

import (
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func keys() Keys {
	b := func(k string) key.Binding { return key.NewBinding(key.WithKeys(k), key.WithHelp(k, k)) }
	return Keys{Up: b("up"), Down: b("down"), Complete: b("tab"), Send: b("enter"), Close: b("esc")}
}

var commands = []Command{{Names: []string{"/sessions"}}, {Names: []string{"/system"}, Args: "[TEXT]"},
	{Names: []string{"/quit", "/exit"}}}

// The menu narrows to the commands the line starts, completes the chosen one, and lets through
// what is not its own: a name typed whole to run, a letter to type, everything once closed.
func TestMenu(t *testing.T) {
	m := New(commands, Styles{})
	m.SetKeys(keys())
	if !m.SetLine("/S") {
		t.Fatal("/S shows no menu")
	}
	if v := ansi.Strip(strings.Join(m.View(80, 0), "\n")); !strings.Contains(v, "› /sessions") || !strings.Contains(v, "/system [TEXT]") || strings.Contains(v, "/quit") {
		t.Fatalf("/S:\n%s", v)
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyDown})
	if a := m.Update(tea.KeyPressMsg{Code: tea.KeyTab}); a != (Complete{Text: "/system "}) {
		t.Fatalf("down, tab: %#v", a)
	}
	if a := m.Update(tea.KeyPressMsg{Code: 'x', Text: "x"}); a != (Through{}) {
		t.Fatalf("a letter: %#v", a)
	}
	m.SetLine("/exit")
	if m.Shows() {
		t.Fatal("/exit starts no command's first name, yet the menu shows")
	}
	m.SetLine("/qu")
	if a := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter}); a != (Complete{Text: "/quit"}) {
		t.Fatalf("enter on /qu: %#v", a)
	}
	m.SetLine("/quit")
	if a := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter}); a != (Through{}) {
		t.Fatalf("enter on /quit, typed whole: %#v", a)
	}
	for _, line := range []string{"//s", "/s x", "s"} {
		if m.SetLine(line) {
			t.Errorf("%q shows the menu", line)
		}
	}
	m.SetLine("/s")
	if !m.Close() || m.SetLine("/se") || m.View(80, 0) != nil {
		t.Fatal("a closed menu shows again")
	}
	if a := m.Update(tea.KeyPressMsg{Code: tea.KeyTab}); a != (Through{}) {
		t.Fatalf("tab on a closed menu: %#v", a)
	}
}
