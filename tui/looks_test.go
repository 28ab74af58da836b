package tui

import (
	"image/color"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/history/historytest"
	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/chat/chattest"
	"parley/tui/notify"
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

// A reply that took 10 s or more by the screen's clock ends with the configured signal when
// the terminal is not focused or says nothing of its focus; a short one, one watched, one
// cancelled and notify off end silently. The title says a reply is streaming.
func TestALongReplysEndIsSignalled(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		kind   notify.Kind
		took   time.Duration
		focus  tea.Msg // nil: never reported
		ending chat.EventKind
		want   string
	}{
		{"12 s, blurred", notify.Bell, 12 * time.Second, tea.BlurMsg{}, chat.EventFinished, "\a"},
		{"12 s, focus unknown", "", 12 * time.Second, nil, chat.EventFinished, "\a"},
		{"12 s, failed", notify.Bell, 12 * time.Second, tea.BlurMsg{}, chat.EventFailed, "\a"},
		{"12 s, osc9", notify.OSC9, 12 * time.Second, tea.BlurMsg{}, chat.EventFinished, "\x1b]9;parley: reply finished\a"},
		{"5 s, blurred", notify.Bell, 5 * time.Second, tea.BlurMsg{}, chat.EventFinished, ""},
		{"12 s, focused", notify.Bell, 12 * time.Second, tea.FocusMsg{}, chat.EventFinished, ""},
		{"12 s, cancelled", notify.Bell, 12 * time.Second, tea.BlurMsg{}, chat.EventCancelled, ""},
		{"12 s, notify off", notify.Off, 12 * time.Second, tea.BlurMsg{}, chat.EventFinished, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			clock := chattest.New(clockStart)
			db := historytest.Open(t)
			s := newSessionIn(t, db)
			if err := db.SetTitle(s.ID, "Keys"); err != nil {
				t.Fatal(err)
			}
			s.Title = "Keys"
			m, _ := openModel(t, Options{DB: db, Client: offlineClient(), Session: s, Clock: clock, Notify: c.kind}, 80, 24)
			if c.focus != nil {
				m, _ = step(m, c.focus)
			}
			m, _ = step(m, postedMsg{out: outgoing{text: "and now?"}, modelName: "test-model", session: m.session,
				rcpt: stored.Receipt{AnchorID: 1, RunID: 1, ReplyID: 2}})
			if got := m.View().WindowTitle; got != "… Keys — parley" {
				t.Fatalf("title while streaming %q", got)
			}
			m, _ = deliver(m, delta("some words"))
			clock.Advance(c.took)
			m, cmd := deliver(m, chat.Event{Kind: c.ending})
			got := ""
			for _, msg := range execCmd(cmd, 200*time.Millisecond) {
				if raw, ok := msg.(tea.RawMsg); ok {
					got += raw.Msg.(string)
				}
			}
			if got != c.want {
				t.Fatalf("wrote %q, want %q", got, c.want)
			}
			if v := m.View(); v.WindowTitle != "Keys — parley" || !v.ReportFocus {
				t.Fatalf("title after the reply %q, focus reported %v", v.WindowTitle, v.ReportFocus)
			}
		})
	}
}
