package history

import (
	"path/filepath"
	"testing"
	"time"

	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/chat/chattest"
)

// Every row is stored with the time of the clock the database was opened with (WithClock):
// in a test, the manual clock the screen and the agent run on, not the system's.
func TestRowsAreStoredOnTheClockGiven(t *testing.T) {
	t.Parallel()
	clock := chattest.New(chattest.Start)
	db, err := Open(filepath.Join(t.TempDir(), "history.db"), WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	at := func(minutes int) time.Time { return chattest.Start.Add(time.Duration(minutes) * time.Minute) }

	rcpt, err := db.Post("", "echo hi", "m", false)
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if err := db.StartRun(rcpt.RunID); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	call := chat.ToolCall{ID: "call_1", Function: "echo", Arguments: `{"message":"hi"}`}
	id, err := db.BeginToolCall(rcpt.RunID, 0, 0, call, "everything", "echo")
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if err := db.EndToolCall(id, chat.ToolResult{Status: chat.ToolRan, Server: "everything", Tool: "echo", Text: "Echo: hi", Size: 8}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if err := db.FinishRun(rcpt.RunID, stored.Finish{Status: chat.StatusSucceeded}); err != nil {
		t.Fatal(err)
	}

	msgs, err := db.Transcript(rcpt.SessionID)
	if err != nil || len(msgs) != 2 {
		t.Fatalf("transcript %+v, %v", msgs, err)
	}
	if !msgs[0].CreatedAt.Equal(at(0)) {
		t.Errorf("message stored at %v, want the clock's %v", msgs[0].CreatedAt, at(0))
	}
	if calls := msgs[1].ToolCalls; len(calls) != 1 || !calls[0].CreatedAt.Equal(at(2)) || !calls[0].FinishedAt.Equal(at(3)) {
		t.Errorf("tool calls %+v, want begun at %v and ended at %v", calls, at(2), at(3))
	}
	run, err := db.Run(rcpt.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if !run.CreatedAt.Equal(at(0)) || !run.StartedAt.Equal(at(1)) || !run.FinishedAt.Equal(at(4)) {
		t.Errorf("run created %v, started %v, finished %v; want %v, %v, %v", run.CreatedAt, run.StartedAt, run.FinishedAt, at(0), at(1), at(4))
	}
	s, err := db.Session(rcpt.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if !s.CreatedAt.Equal(at(0)) || !s.UpdatedAt.Equal(at(4)) {
		t.Errorf("session created %v, updated %v; want %v, %v", s.CreatedAt, s.UpdatedAt, at(0), at(4))
	}
}
