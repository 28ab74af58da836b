package tui

import (
	"image/color"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"parley/history/stored"
	"parley/internal/chat"
	palette "parley/tui/theme"
)

// The palette follows the terminal's answer to OSC 11, else COLORFGBG, else is dark; a theme
// chosen light or dark is kept whatever the terminal says. The code block shows it: chroma's
// keyword colour is 75 on dark, 25 on light, and the input's bar is drawn in the user colour.
func TestThemeFollowsTheTerminalUnlessChosen(t *testing.T) {
	t.Parallel()
	white, black := color.RGBA{0xff, 0xff, 0xff, 0xff}, color.RGBA{0, 0, 0, 0xff}
	for _, c := range []struct {
		name      string
		theme     palette.Choice
		colorFGBG string
		answer    color.Color // the terminal's OSC 11 answer; nil: none
		dark      bool
	}{
		{"nothing known", "", "", nil, true},
		{"OSC 11 white", "", "", white, false},
		{"COLORFGBG light", palette.Auto, "0;15", nil, false},
		{"OSC 11 over COLORFGBG", palette.Auto, "0;15", black, true},
		{"dark chosen, light terminal", palette.Dark, "0;15", white, true},
		{"light chosen, dark terminal", palette.Light, "15;0", black, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := New(Options{Client: offlineClient(), Session: stored.Session{ID: "s1", Title: "t"}, Theme: c.theme, ColorFGBG: c.colorFGBG})
			m, _ = step(m, tea.WindowSizeMsg{Width: 80, Height: 24})
			m, _ = step(m, sessionLoadedMsg{session: m.session, msgs: []stored.Message{
				{ID: 1, Role: chat.RoleUser, Content: "code?"},
				{ID: 2, Role: chat.RoleAssistant, AnchorID: 1, RunID: 1, Status: chat.StatusSucceeded, Model: "m",
					Content: "Here:\n\n```go\nfunc main() {}\n```\n"}}})
			if c.answer != nil {
				m, _ = step(m, tea.BackgroundColorMsg{Color: c.answer})
			}
			view := m.View().Content
			keyword, bar := "\x1b[38;5;75mfunc", palette.For(true).User
			if !c.dark {
				keyword, bar = "\x1b[38;5;25mfunc", palette.For(false).User
			}
			if m.dark != c.dark || !strings.Contains(view, keyword) {
				t.Fatalf("dark %v, want %v; the code's keyword %q is not in\n%q", m.dark, c.dark, keyword, view)
			}
			if got := m.styles.Input.Focused.Prompt.GetForeground(); got != bar {
				t.Fatalf("the input's bar is drawn in %v, want %v", got, bar)
			}
		})
	}
}
