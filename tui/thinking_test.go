package tui

import (
	"strings"
	"testing"
	"time"

	"parley/internal/chat"
)

func reasoning(s string) chat.Event { return chat.Event{Kind: chat.EventReasoning, Text: s} }

// Thinking streams as one dim line that counts, apart from the answer; it becomes "Thought
// for" once the answer starts, and t on the selected reply expands and collapses it.
func TestThinkingIsOneLineApartFromTheAnswer(t *testing.T) {
	t.Parallel()
	m, clock := clockedStream(t, storedExchanges(1), 100, 30)
	reply := m.active.rcpt.ReplyID
	m, _ = deliver(m, firstAttempt, reasoning("The user asks about TCP. "))
	clock.Advance(14 * time.Second)
	m, _ = deliver(m, reasoning("First, recall the handshake."))
	m.transcript.Refresh()
	screen := plain(m)
	if !strings.Contains(screen, "▸ Thinking… 14s · ") || !strings.Contains(screen, "recall the handshake.") {
		t.Fatalf("no counting thinking line:\n%s", screen)
	}
	if m.transcript.Text(reply) != "" {
		t.Errorf("thinking reached the answer: %q", m.transcript.Text(reply))
	}
	if strings.Count(screen, "recall the handshake") != 1 {
		t.Errorf("the thinking shows more than once:\n%s", screen)
	}
	clock.Advance(24 * time.Second)
	m, _ = deliver(m, delta("TCP opens with a handshake."), chat.Event{Kind: chat.EventFinished, FinishReason: "stop"})
	screen = plain(m)
	if !strings.Contains(screen, "▸ Thought for 14s") || !strings.Contains(screen, "TCP opens with a handshake.") ||
		strings.Contains(screen, "recall the handshake") {
		t.Fatalf("after the answer:\n%s", screen)
	}
	clock.Advance(selectGuard)
	m = pressKeys(m, "esc", "t")
	if screen = plain(m); !strings.Contains(screen, "▾ Thought for 14s") || !strings.Contains(screen, "First, recall the handshake.") {
		t.Fatalf("expanded:\n%s", screen)
	}
	m, _ = step(m, press("t"))
	if screen = plain(m); strings.Contains(screen, "recall the handshake") {
		t.Fatalf("collapsed again:\n%s", screen)
	}
}

// A stored reply's thinking shows collapsed when the session opens.
func TestStoredThinkingShowsCollapsed(t *testing.T) {
	t.Parallel()
	msgs := storedExchanges(1)
	msgs[1].Reasoning = "Stored thinking about the question."
	m := loadedModel(t, msgs, 100, 30)
	if screen := plain(m); !strings.Contains(screen, "▸ Thought · ") || strings.Contains(screen, "Stored thinking") {
		t.Fatalf("stored thinking:\n%s", screen)
	}
}

// A reply cut at the token limit says so; with no answer, that the thinking used it up.
func TestLengthNote(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		events []chat.Event
		note   string
	}{
		{[]chat.Event{delta("A long answer that was cut"), {Kind: chat.EventFinished, FinishReason: "length"}}, "stopped at the token limit"},
		{[]chat.Event{reasoning("thinking and thinking"), {Kind: chat.EventFinished, FinishReason: "length"}}, "stopped at the token limit while thinking — no answer"},
	} {
		m := streamingModel(t, storedExchanges(1), 100, 30)
		m, _ = deliver(m, c.events...)
		if screen := plain(m); !strings.Contains(screen, c.note) {
			t.Errorf("no %q:\n%s", c.note, screen)
		}
	}
	stored := storedExchanges(1)
	stored[1].FinishReason = "length"
	if screen := plain(loadedModel(t, stored, 100, 30)); !strings.Contains(screen, "stopped at the token limit") {
		t.Errorf("a stored cut reply:\n%s", screen)
	}
}

// Every wait for the first word shows how long it has lasted.
func TestWaitingCountsUp(t *testing.T) {
	t.Parallel()
	m, clock := clockedStream(t, storedExchanges(1), 100, 30)
	m, _ = deliver(m, firstAttempt)
	clock.Advance(72 * time.Second)
	m, _ = step(m, m.spinner.Tick())
	if screen := plain(m); !strings.Contains(screen, "waiting for the reply · 1m 12s · esc cancels") {
		t.Fatalf("status:\n%s", screen)
	}
}

// The reader joins a flood of thinking deltas into one event per kind, in order.
func TestReaderBatchesThinkingAndAnswer(t *testing.T) {
	t.Parallel()
	ch := make(chan chat.Event, 8)
	for _, ev := range []chat.Event{reasoning("a"), reasoning("b"), delta("c"), delta("d"), {Kind: chat.EventFinished}} {
		ch <- ev
	}
	msg := readEvents(1, ch)().(runEventsMsg)
	want := []chat.Event{reasoning("ab"), delta("cd"), {Kind: chat.EventFinished}}
	if len(msg.events) != len(want) {
		t.Fatalf("batch %+v", msg.events)
	}
	for i := range want {
		if msg.events[i].Kind != want[i].Kind || msg.events[i].Text != want[i].Text {
			t.Errorf("event %d: %+v, want %+v", i, msg.events[i], want[i])
		}
	}
}

// The thinking line counts the endpoint's reasoning tokens once usage says them, and says the
// duration the run stored once it ends; reopened, the reply says the very same.
func TestThoughtReadsTheSameReopened(t *testing.T) {
	t.Parallel()
	m, clock := clockedStream(t, storedExchanges(1), 100, 30)
	m, _ = deliver(m, firstAttempt, reasoning(strings.Repeat("think ", 250)))
	clock.Advance(12 * time.Second)
	m, _ = deliver(m, delta("The answer."),
		chat.Event{Kind: chat.EventUsage, Usage: chat.Usage{CompletionTokens: 400, ReasoningTokens: 300}},
		chat.Event{Kind: chat.EventFinished, FinishReason: "stop", Thought: 13 * time.Second})
	live := plain(m)
	if !strings.Contains(live, "▸ Thought for 13s · 300 tok") {
		t.Fatalf("after the run:\n%s", live)
	}
	msgs := storedExchanges(1)
	msgs[1].Reasoning, msgs[1].Thought, msgs[1].ReasoningTokens = strings.Repeat("think ", 250), 13*time.Second, 300
	if reopened := plain(loadedModel(t, msgs, 100, 30)); !strings.Contains(reopened, "▸ Thought for 13s · 300 tok") {
		t.Fatalf("reopened:\n%s", reopened)
	}
}

// A count the endpoint never gave is the screen's estimate, and says so with ~.
func TestEstimatedThinkingIsMarked(t *testing.T) {
	t.Parallel()
	m, clock := clockedStream(t, storedExchanges(1), 100, 30)
	m, _ = deliver(m, firstAttempt, reasoning(strings.Repeat("think ", 250)))
	clock.Advance(12 * time.Second)
	m, _ = deliver(m, delta("The answer."), chat.Event{Kind: chat.EventFinished, FinishReason: "stop", Thought: 12 * time.Second})
	if screen := plain(m); !strings.Contains(screen, "▸ Thought for 12s · ~375 tok") {
		t.Fatalf("the estimate is not marked:\n%s", screen)
	}
}
