package tui

import (
	"strings"
	"testing"
	"time"

	"parley/internal/chat"
	"parley/internal/markdown"
	"parley/internal/markdown/markdowntest"

	tea "charm.land/bubbletea/v2"
)

// Frames: what one message may render, and keys during a flood of batches.

// renderedChunks is how many chunks of reply id's markdown glamour has rendered.
func renderedChunks(m Model, id int64) int {
	n := 0
	for _, done := range m.transcript.Progress(id).Chunks {
		if done {
			n++
		}
	}
	return n
}

// frameAsked returns the frame cmd asks for at once, if it does.
func frameAsked(cmd tea.Cmd) tea.Msg {
	for _, msg := range execCmd(cmd, 100*time.Millisecond) {
		if f, ok := msg.(frameMsg); ok {
			return f
		}
	}
	return nil
}

// spent is the rendering work the last Update (and View) of m took.
func spent(m Model) int { return markdown.FrameQuota - m.transcript.QuotaLeft() }

// A long reply arriving at full speed, a batch of 2,000 tokens per message: no message renders
// more than a frame's quota and a chunk, esc cancels the run at once (its Update renders no
// more than any other), the batches already read still show, and the run's end stops it.
// From esc to the end nothing is rendered: the screen that says the run stopped is drawn
// before the last text is, which the frame asked for at the end renders.
func TestEscDuringAFloodOfBatches(t *testing.T) {
	t.Parallel()
	toks := markdowntest.DemoReply(t, 30_000, false)
	m, clock := clockedStream(t, storedExchanges(5), 120, 40)
	cancelled := false
	cancel := m.active.cancel
	m.active.cancel = func() { cancelled = true; cancel() }
	var sent strings.Builder
	deliverToks := func(from, to int) {
		for i := from; i < to; i += 2000 {
			batch := strings.Join(toks[i:min(i+2000, to)], "")
			sent.WriteString(batch)
			clock.Advance(batchWindow)
			m, _ = deliver(m, delta(batch))
			m.View()
			if s := spent(m); s > markdown.FrameQuota+2*markdown.MaxChunk {
				t.Fatalf("a batch's message rendered %d of work, more than a frame's quota", s)
			}
		}
	}
	deliverToks(0, 20_000)
	m, _ = step(m, press("esc"))
	if !cancelled || !m.active.cancelling || m.focus != focusInput {
		t.Fatal("esc did not cancel the run at once")
	}
	if s := spent(m); s > markdown.FrameQuota+2*markdown.MaxChunk {
		t.Fatalf("esc's message rendered %d of work", s)
	}
	if !strings.Contains(plain(m), "cancelling") {
		t.Fatalf("the screen does not say the run is being cancelled:\n%s", plain(m))
	}
	// The batches the reader had already taken arrive, then the run's end.
	id := m.active.rcpt.ReplyID
	before := renderedChunks(m, id)
	deliverToks(20_000, 24_000)
	if n := renderedChunks(m, id); n != before {
		t.Fatalf("the batches of a run being stopped rendered %d chunks", n-before)
	}
	m, cmd := deliver(m, chat.Event{Kind: chat.EventCancelled})
	if m.active != nil || !strings.Contains(strings.SplitN(plain(m), "\n", 2)[0], "idle") {
		t.Fatal("the run did not end with its cancelled event")
	}
	if n := renderedChunks(m, id); n != before {
		t.Fatalf("the run's end rendered %d chunks before it was drawn", n-before)
	}
	// The end asks for a frame, and the frames from it render what is on screen.
	frames := 0
	for frame := frameAsked(cmd); frame != nil && frames < 50; frame = frameAsked(cmd) {
		m, cmd = step(m, frame)
		frames++
	}
	if frames == 0 || m.transcript.Unfinished() {
		t.Fatalf("after %d frames from the end the screen is unrendered", frames)
	}
	e := lastReply(t, m)
	if e.message.Status != chat.StatusCancelled || e.text != sent.String() {
		t.Fatalf("reply %s with %d of %d bytes", e.message.Status, len(e.text), sent.Len())
	}
	if !strings.Contains(plain(m), "cancelled") {
		t.Fatalf("the reply does not say it was cancelled:\n%s", plain(m))
	}
}

// A reply opened whole (a session's long reply, or one that streamed past faster than the
// screen) renders only what is on screen; scrolling renders the rest as it comes into view,
// within a frame's quota per message, and asks for frames until the screen is rendered.
func TestLongReplyRendersWhatIsOnScreen(t *testing.T) {
	t.Parallel()
	msgs := storedExchanges(2)
	msgs[3].Content = strings.Join(markdowntest.DemoReply(t, 20_000, false), "")
	m := loadedModel(t, msgs, 100, 30)
	e := lastReply(t, m)
	chunks := func() []bool { return m.transcript.Progress(e.message.ID).Chunks }
	rendered := func() int {
		n := 0
		for _, r := range chunks() {
			if r {
				n++
			}
		}
		return n
	}
	if n := rendered(); n == 0 || n > 3 {
		t.Fatalf("the first frame rendered %d of the reply's %d chunks", n, len(chunks()))
	}
	if strings.Contains(plain(m), "**") {
		t.Fatalf("markdown on screen is not rendered:\n%s", plain(m))
	}
	for range 20 {
		m, _ = step(m, press("pgup"))
		for m.framePending {
			m, _ = step(m, frameMsg{tag: m.lastRunTag})
		}
		if s := spent(m); s > markdown.FrameQuota+2*markdown.MaxChunk {
			t.Fatalf("a page up rendered %d of work", s)
		}
	}
	if n := rendered(); n >= len(chunks()) || n < 4 {
		t.Fatalf("after 20 pages up, %d of %d chunks rendered", n, len(chunks()))
	}
}
