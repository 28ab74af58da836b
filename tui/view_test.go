package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"parley/history/stored"
	"parley/internal/chat"
	"parley/tui/transcript/transcripttest"
)

// goldenModel is an 80×24 screen on transcripttest.GoldenSession, its last reply in state st.
func goldenModel(t testing.TB, st chat.Status, content string, fail *chat.Classification) Model {
	t.Helper()
	return loadedModel(t, transcripttest.GoldenSession(st, content, fail), 80, 24)
}

// TestGolden pins the layout of each state at 80×24 as a terminal without colors sees it.
// Regenerate with go test ./tui -update.
func TestGolden(t *testing.T) {
	t.Parallel()
	states := map[string]func(t *testing.T) Model{
		"empty": func(t *testing.T) Model { return loadedModel(t, nil, 80, 24) },
		"finished": func(t *testing.T) Model {
			return goldenModel(t, chat.StatusSucceeded, "Use `println!(\"hi\");` in **Rust**.", nil)
		},
		"failed": func(t *testing.T) Model {
			return goldenModel(t, chat.StatusFailed, "", transcripttest.Overloaded())
		},
		"cancelled": func(t *testing.T) Model {
			return goldenModel(t, chat.StatusCancelled, "In Rust you use the", nil)
		},
		"interrupted": func(t *testing.T) Model {
			return goldenModel(t, chat.StatusInterrupted, "Rust has a macro", nil)
		},
		"streaming": func(t *testing.T) Model {
			m := streamingModel(t, transcripttest.GoldenSession(chat.StatusSucceeded, "`println!`", nil)[:2], 80, 24)
			m, _ = deliver(m, chat.Event{Kind: chat.EventStarted, Attempt: 1, MaxAttempts: 3},
				delta("Sure:\n\n1. one\n2. tw"))
			m, _ = step(m, frameMsg{tag: m.active.tag})
			return m
		},
		"waiting": func(t *testing.T) Model {
			m := streamingModel(t, transcripttest.GoldenSession(chat.StatusSucceeded, "", nil)[:2], 80, 24)
			m, _ = deliver(m, chat.Event{Kind: chat.EventStarted, Attempt: 1, MaxAttempts: 3})
			return m
		},
		"queued": func(t *testing.T) Model {
			m := streamingModel(t, transcripttest.GoldenSession(chat.StatusSucceeded, "", nil)[:2], 80, 24)
			m, _ = deliver(m, delta("Working on it"))
			m, _ = step(m, frameMsg{tag: m.active.tag})
			m, _ = step(m, postedMsg{out: outgoing{text: "Also in C?"}, modelName: "test-model", session: m.session,
				rcpt: stored.Receipt{AnchorID: 5, RunID: 3, ReplyID: 6, Queued: true}})
			return m
		},
		"transcript-focus": func(t *testing.T) Model {
			m := goldenModel(t, chat.StatusSucceeded, "Use `println!`.", nil)
			m, _ = step(m, press("esc"))
			return m
		},
		"full-help": func(t *testing.T) Model {
			m := loadedModel(t, nil, 80, 24)
			m, _ = step(m, press("?"))
			return m
		},
	}
	for name, build := range states {
		t.Run(name, func(t *testing.T) {
			golden.RequireEqual(t, asciiView(build(t)))
		})
	}
}

// The same state renders the same at a new size as a fresh model of that size.
func TestResizeMatchesFreshRender(t *testing.T) {
	t.Parallel()
	msgs := transcripttest.GoldenSession(chat.StatusSucceeded, "Use `println!`.", nil)
	m := loadedModel(t, msgs, 80, 24)
	m, _ = step(m, tea.WindowSizeMsg{Width: 50, Height: 20})
	if got, want := m.View().Content, loadedModel(t, msgs, 50, 20).View().Content; got != want {
		t.Fatalf("resized:\n%s\nfresh:\n%s", got, want)
	}
}

func TestResizeRelaysOut(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, storedExchanges(5), 80, 24)
	for _, size := range [][2]int{{40, 12}, {120, 40}, {60, 30}} {
		m, _ = step(m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		lines := strings.Split(m.View().Content, "\n")
		if len(lines) != size[1] {
			t.Fatalf("%v: %d lines", size, len(lines))
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w > size[0] {
				t.Fatalf("%v: line %d is %d wide: %q", size, i, w, ansi.Strip(l))
			}
		}
		if !strings.Contains(plain(m), "Answer 5") {
			t.Fatalf("%v: newest reply not shown", size)
		}
	}
}

func TestLightBackground(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, storedExchanges(1), 80, 24)
	dark := m.View().Content
	m, _ = step(m, tea.BackgroundColorMsg{Color: ansiWhite{}})
	if m.dark {
		t.Fatal("a white background should select the light styles")
	}
	if m.View().Content == dark {
		t.Fatal("the screen did not change for a light background")
	}
	if ansi.Strip(m.View().Content) != ansi.Strip(dark) {
		t.Fatal("the text should not depend on the background")
	}
}

// ansiWhite is a white terminal background.
type ansiWhite struct{}

func (ansiWhite) RGBA() (r, g, b, a uint32) { return 0xffff, 0xffff, 0xffff, 0xffff }

// TestTier2BannerGolden pins both banner forms at 80×24.
func TestTier2BannerGolden(t *testing.T) {
	t.Parallel()
	forms := map[string]func(m *Model){
		"countdown": func(m *Model) {
			// Third attempt, as in the issue: 8 s.
			for i := int64(1); i <= 3; i++ {
				m.tier2.Arm(failedRun(i, overloaded), clockStart)
				if i < 3 {
					m.tier2.RetryNow()
					m.tier2.Sent(m.tier2.Token(), i+1)
					m.tier2.Ended(i+1, chat.StatusFailed)
				}
			}
		},
		"scheduled": func(m *Model) {
			c := chat.Classification{Retryable: true, Class: chat.RateLimited, Label: "Rate limited",
				RetryAfterUntil: clockStart.Add(50 * time.Minute)}
			m.tier2.Arm(failedRun(1, c), clockStart)
		},
	}
	for name, arm := range forms {
		t.Run(name, func(t *testing.T) {
			m := goldenModel(t, chat.StatusFailed, "", &overloaded)
			arm(&m)
			m.now = clockStart
			m, _ = step(m, tea.WindowSizeMsg{Width: 80, Height: 24})
			golden.RequireEqual(t, asciiView(m))
		})
	}
}
