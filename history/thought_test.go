package history

import (
	"testing"
	"time"

	"parley/history/stored"
	"parley/internal/chat"
)

// How long a reply's model thought, and how long its first word took, are stored at its run's
// end and read with the reply, with its usage; a
// database from before it was kept migrates without loss and reads 0 (not known).
func TestThoughtIsStoredAndMigrates(t *testing.T) {
	t.Parallel()
	rec := startRecording(t, "think first")
	db, r, clock, in, out := rec.db, rec.r, rec.clock, rec.in, rec.out
	rec.send(t, chat.Event{Kind: chat.EventStarted, Attempt: 1, MaxAttempts: 3})
	clock.Advance(3 * time.Second) // silent thinking before the first thought
	rec.send(t, chat.Event{Kind: chat.EventReasoning, Text: "Hmm, "})
	clock.Advance(9 * time.Second)
	rec.send(t, chat.Event{Kind: chat.EventReasoning, Text: "so List<T>."})
	clock.Advance(2 * time.Second) // answering is not thinking
	rec.send(t, chat.Event{Kind: chat.EventDelta, Text: "Use List<T>."})
	rec.send(t, chat.Event{Kind: chat.EventUsage, Usage: chat.Usage{PromptTokens: 10, CompletionTokens: 300, ReasoningTokens: 120}})
	in <- chat.Event{Kind: chat.EventFinished}
	end := recv(t, out)
	if end.Kind != chat.EventFinished || end.Thought != 12*time.Second {
		t.Fatalf("terminal event %v, thought %v; want 12s", end.Kind, end.Thought)
	}
	reply := func(db *DB) stored.Message {
		t.Helper()
		msgs, err := db.queryMessages(`WHERE m.id = ?`, r.ReplyID)
		if err != nil || len(msgs) != 1 {
			t.Fatalf("reading the reply: %v", err)
		}
		return msgs[0]
	}
	if m := reply(db); m.Thought != 12*time.Second || m.ReasoningTokens != 120 || m.Reasoning != "Hmm, so List<T>." {
		t.Fatalf("stored: thought %v, %d reasoning tokens, %q", m.Thought, m.ReasoningTokens, m.Reasoning)
	}
	// What versions are compared by: the first word came 3 s after the request, the usage as
	// the endpoint gave it.
	if m := reply(db); m.FirstWord != 3*time.Second || m.Usage.CompletionTokens != 300 || m.Usage.PromptTokens != 10 || m.Took <= 0 {
		t.Fatalf("stored: first word after %v, usage %+v, took %v", m.FirstWord, m.Usage, m.Took)
	}

	// testdata/v9.db was made by the release before this column: opening it migrates, what
	// was there stays, and a reply's duration reads 0.
	old := openCopy(t, "testdata/v9.db")
	replies, err := old.queryMessages(`WHERE m.role = 'assistant'`)
	if err != nil || len(replies) != 3 {
		t.Fatalf("replies %+v, %v", replies, err)
	}
	for _, m := range replies {
		if m.Thought != 0 || m.FirstWord != 0 || m.Content == "" || m.Status != chat.StatusSucceeded {
			t.Errorf("migrated: thought %v, %q, %s", m.Thought, m.Content, m.Status)
		}
	}
	var version int
	if err := old.pool().QueryRow("PRAGMA user_version").Scan(&version); err != nil || version != len(migrations) {
		t.Fatalf("user_version %d, %v", version, err)
	}
}
