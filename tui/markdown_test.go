package tui

import (
	"math"
	"strings"
	"testing"

	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/markdown/markdowntest"
)

// Markdown on the screen: a streamed reply drawn as a stored one is. How replies are cut and
// glued is tested in internal/markdown.

// A reply that finished streaming keeps the render it streamed with (its last frame renders
// only the tail), and, rendered whole, it is drawn as a stored copy of it is when a session is
// opened.
func TestFinishedReplyRendersLikeAStoredOne(t *testing.T) {
	t.Parallel()
	toks := markdowntest.DemoReply(t, 1200, false)
	m := streamingModel(t, nil, 90, 30)
	id := m.active.rcpt.ReplyID
	for i := 0; i < len(toks); i += 15 {
		m, _ = deliver(m, delta(strings.Join(toks[i:min(i+15, len(toks))], "")))
		m, _ = step(m, frameMsg{tag: m.active.tag})
		m.View()
	}
	progress := m.transcript.Progress(id)
	if n := len(progress.Chunks); n == 0 || !progress.Chunks[n-1] {
		t.Fatal("the chunks on screen were not rendered while the reply streamed")
	}
	tail := progress.TailWork
	m, _ = deliver(m, chat.Event{Kind: chat.EventFinished})
	if s := spent(m); s > tail {
		t.Fatalf("the final frame rendered %d of work, more than the tail's %d", s, tail)
	}
	question, _ := m.transcript.Message(m.transcript.Anchor(id))
	reply, _ := m.transcript.Message(id)
	reply.Content, reply.Status = strings.Join(toks, ""), chat.StatusSucceeded
	fresh := loadedModel(t, []stored.Message{question, reply}, 90, 30)
	got, want := renderWhole(m), renderWhole(fresh)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("finished render differs from a fresh one:\nfinished:\n%s\nfresh:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// renderWhole renders every chunk of every message of m's transcript and returns its lines:
// the window is made taller than the transcript, and the quota unbounded.
func renderWhole(m Model) []string {
	t := m.transcript
	t.SetSize(m.width, 10_000)
	t.Quota(math.MaxInt)
	t.Prepare()
	lines := t.View()
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
