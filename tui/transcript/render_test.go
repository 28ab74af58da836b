package transcript

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"parley/history"
	"parley/internal/chat"
	"parley/tui/transcript/transcripttest"
)

// goldenSession is a finished exchange followed by a question whose reply is in state st:
// the session the layout goldens of the transcript and of the chat screen are drawn from.
var goldenSession = transcripttest.GoldenSession

// TestGolden pins how the transcript draws each state of a reply, and the other messages it
// shows, at 60×24 without colors. Regenerate with go test ./tui/transcript -update.
func TestGolden(t *testing.T) {
	overloaded := transcripttest.Overloaded()
	states := map[string]func() *List{
		"finished": func() *List {
			return newList(goldenSession(chat.StatusSucceeded, "Use `println!(\"hi\");` in **Rust**.", nil), 60, 24)
		},
		"failed": func() *List {
			return newList(goldenSession(chat.StatusFailed, "Rust has", overloaded), 60, 24)
		},
		"cancelled": func() *List {
			return newList(goldenSession(chat.StatusCancelled, "In Rust you use the", nil), 60, 24)
		},
		"interrupted": func() *List {
			return newList(goldenSession(chat.StatusInterrupted, "Rust has a macro", nil), 60, 24)
		},
		"held": func() *List {
			l := newList(goldenSession(chat.StatusQueued, "", nil), 60, 24)
			l.SetHeld(true, "enter")
			return l
		},
		"streaming": func() *List {
			l := newList(goldenSession(chat.StatusQueued, "", nil), 60, 24)
			l.StartStreaming(4)
			l.AppendDelta(4, "Sure:\n\n1. one\n2. tw")
			l.Refresh()
			return l
		},
		"thinking": func() *List {
			msgs := goldenSession(chat.StatusSucceeded, "Use `println!`.", nil)
			msgs[3].Reasoning = "The operator asks about Rust. The macro is println!, with a bang."
			l := newList(msgs, 60, 24)
			l.ToggleThinking(4)
			return l
		},
		"selected with a note": func() *List {
			l := newList(goldenSession(chat.StatusSucceeded, "Use `println!`.", nil), 60, 24)
			l.SetNote(4, "retry 1 failed: Provider overloaded")
			l.SelectLast()
			return l
		},
		"system prompt and paste": func() *List {
			// The paste is noted as it is sent, before its message is shown.
			paste := strings.Repeat("a line of the log\n", 12)
			l := New(Styles{})
			l.SetSize(60, 24)
			l.NotePaste(paste, "[pasted 12 lines]")
			l.Reset([]history.Message{
				{ID: 1, Role: chat.RoleSystem, SystemRole: "poet", Content: "Answer in verse.\nRhyme.\nBe brief.\nNever explain."},
				{ID: 2, Role: chat.RoleUser, Content: "Read this: " + paste + "What failed?"},
			})
			return l
		},
	}
	for name, build := range states {
		t.Run(name, func(t *testing.T) {
			l := build()
			l.Prepare()
			lines := strings.Split(plain(l), "\n")
			for i, line := range lines {
				lines[i] = strings.TrimRight(line, " ")
			}
			golden.RequireEqual(t, strings.Join(lines, "\n")+"\n")
		})
	}
}

func TestModelNameShowsAPathByItsFileName(t *testing.T) {
	for model, want := range map[string]string{
		"/models/llama-3.1-8b.gguf": "llama-3.1-8b.gguf",
		"./qwen.gguf":               "qwen.gguf",
		`C:\models\phi.gguf`:        "phi.gguf",
		// llama-server started with a relative -m path serves it as it was given.
		"models/llama-2-tiny-random.gguf": "llama-2-tiny-random.gguf",
		"unsloth/Qwen3-8B-GGUF":           "unsloth/Qwen3-8B-GGUF",
		"openai/gpt-4o":                   "openai/gpt-4o",
		"anthropic/claude-3.5-sonnet":     "anthropic/claude-3.5-sonnet",
		"llama3.2":                        "llama3.2",
	} {
		if got := ModelName(model); got != want {
			t.Errorf("%q shows as %q, want %q", model, got, want)
		}
	}
}

// A reply with other versions says which it is.
func TestRepliesWithVersionsAreMarked(t *testing.T) {
	l := newList(goldenSession(chat.StatusSucceeded, "Use `println!`.", nil), 60, 24)
	l.SetMarks(map[int64]history.Mark{4: {N: 2, Of: 3}})
	if got := plain(l); !strings.Contains(got, "Assistant · test-model ‹ 2/3 ›") || strings.Count(got, "‹") != 1 {
		t.Fatalf("marks:\n%s", got)
	}
}
