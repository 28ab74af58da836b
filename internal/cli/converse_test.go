package cli

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"parley/internal/chat"
	"parley/tui/notify"
)

// panicking is a chat screen with a bug: its first update panics.
type panicking struct{}

func (panicking) Init() tea.Cmd                       { return nil }
func (panicking) Update(tea.Msg) (tea.Model, tea.Cmd) { panic("a bug in the screen") }
func (panicking) View() tea.View                      { return tea.NewView("") }

// A panic inside the chat screen still gives the terminal back its title, cursor style and
// wheel mode, written after Bubble Tea has restored the terminal, and fails with exit status 1
// instead of passing for a quit. The screen-reader mode set nothing, and writes nothing back.
func TestTheScreenGivesTheTerminalBackAfterAPanic(t *testing.T) {
	t.Parallel()
	for _, reader := range []bool{false, true} {
		ios, _, out, _ := Test()
		code, err := runScreen(context.Background(), panicking{}, ios.Out, ios, reader)
		if code != chat.ExitFailed || err == nil || !strings.Contains(err.Error(), "error of parley's own") {
			t.Fatalf("screen reader %v: exit %d, %v; want %d and the error", reader, code, err, chat.ExitFailed)
		}
		got := out.String()
		if reader {
			if strings.Contains(got, "\x1b") {
				t.Errorf("the screen-reader mode wrote %q", got)
			}
			continue
		}
		if !strings.HasPrefix(got, notify.Start) || !strings.HasSuffix(got, notify.Exit) {
			t.Errorf("the terminal was not given back after the panic: %q", got)
		}
	}
}
