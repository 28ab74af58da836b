package history

import (
	"strconv"
	"testing"
	"time"

	"parley/internal/chat"
)

// How long a reply's model thought is stored at its run's end and read with the reply; a
// database from before it was kept migrates without loss and reads 0 (not known).
func TestThoughtIsStoredAndMigrates(t *testing.T) {
	rec := startRecording(t, "think first")
	db, r, clock, in, out := rec.db, rec.r, rec.clock, rec.in, rec.out
	in <- chat.Event{Kind: chat.EventStarted, Attempt: 1, MaxAttempts: 3}
	recv(t, out)
	clock.Advance(3 * time.Second) // silent thinking before the first thought
	in <- chat.Event{Kind: chat.EventReasoning, Text: "Hmm, "}
	recv(t, out)
	clock.Advance(9 * time.Second)
	in <- chat.Event{Kind: chat.EventReasoning, Text: "so List<T>."}
	recv(t, out)
	clock.Advance(2 * time.Second) // answering is not thinking
	in <- chat.Event{Kind: chat.EventDelta, Text: "Use List<T>."}
	recv(t, out)
	in <- chat.Event{Kind: chat.EventUsage, Usage: chat.Usage{PromptTokens: 10, CompletionTokens: 300, ReasoningTokens: 120}}
	recv(t, out)
	in <- chat.Event{Kind: chat.EventFinished}
	end := recv(t, out)
	if end.Kind != chat.EventFinished || end.Thought != 12*time.Second {
		t.Fatalf("terminal event %v, thought %v; want 12s", end.Kind, end.Thought)
	}
	reply := func(db *DB) Message {
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

	// The database as the release before this column left it: the column gone, the version
	// one lower. Opening it migrates; what was there stays, and the duration reads 0.
	path := db.path
	db.Close()
	raw := rawSQL(t, path)
	for _, q := range []string{`ALTER TABLE runs DROP COLUMN thought_ms`, `PRAGMA user_version = ` + strconv.Itoa(len(migrations)-1)} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	raw.Close()
	old, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if m := reply(old); m.Thought != 0 || m.ReasoningTokens != 120 || m.Content != "Use List<T>." || m.Reasoning != "Hmm, so List<T>." {
		t.Fatalf("migrated: thought %v, %d reasoning tokens, %q / %q", m.Thought, m.ReasoningTokens, m.Content, m.Reasoning)
	}
	var version int
	if err := old.sql.QueryRow("PRAGMA user_version").Scan(&version); err != nil || version != len(migrations) {
		t.Fatalf("user_version %d, %v", version, err)
	}
}
