package transcript

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"parley/history/stored"
	"parley/internal/chat"
	"parley/tui/transcript/transcripttest"
)

// goldenList is a 60×24 transcript of transcripttest.GoldenSession, its last reply in state st.
func goldenList(st chat.Status, content string, fail *chat.Classification) *List {
	return newList(transcripttest.GoldenSession(st, content, fail), 60, 24)
}

// TestGolden pins how the transcript draws each state of a reply, and the other messages it
// shows, at 60×24 without colors. Regenerate with go test ./tui/transcript -update.
func TestGolden(t *testing.T) {
	states := map[string]func() *List{
		"finished": func() *List {
			return goldenList(chat.StatusSucceeded, "Use `println!(\"hi\");` in **Rust**.", nil)
		},
		"failed": func() *List {
			return goldenList(chat.StatusFailed, "Rust has", transcripttest.Overloaded())
		},
		"cancelled": func() *List {
			return goldenList(chat.StatusCancelled, "In Rust you use the", nil)
		},
		"interrupted": func() *List {
			return goldenList(chat.StatusInterrupted, "Rust has a macro", nil)
		},
		"held": func() *List {
			l := goldenList(chat.StatusQueued, "", nil)
			l.SetHeld(true, "enter")
			return l
		},
		"streaming": func() *List {
			l := goldenList(chat.StatusQueued, "", nil)
			l.StartStreaming(4)
			l.AppendDelta(4, "Sure:\n\n1. one\n2. tw")
			l.Refresh()
			return l
		},
		"thinking": func() *List {
			msgs := transcripttest.GoldenSession(chat.StatusSucceeded, "Use `println!`.", nil)
			msgs[3].Reasoning = "The operator asks about Rust. The macro is println!, with a bang."
			l := newList(msgs, 60, 24)
			l.ToggleThinking(4)
			return l
		},
		"selected with a note": func() *List {
			l := goldenList(chat.StatusSucceeded, "Use `println!`.", nil)
			l.SetNote(4, "retry 1 failed: Provider overloaded")
			l.SelectLast()
			return l
		},
		"system prompt and paste": func() *List {
			// The paste is noted as it is sent, before its message is shown.
			paste := strings.Repeat("a line of the log\n", 12)
			l := New(Styles{})
			l.SetSize(60, 24)
			l.SetOptions(Options{ExpandKey: "ctrl+o"})
			l.NotePaste(paste, "[pasted 12 lines]")
			l.Reset([]stored.Message{
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
	l := goldenList(chat.StatusSucceeded, "Use `println!`.", nil)
	l.SetMarks(map[int64]stored.Mark{4: {N: 2, Of: 3}})
	if got := plain(l); !strings.Contains(got, "Assistant · test-model ‹ 2/3 ›") || strings.Count(got, "‹") != 1 {
		t.Fatalf("marks:\n%s", got)
	}
}
