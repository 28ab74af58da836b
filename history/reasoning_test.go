package history

import (
	"testing"
	"time"

	"parley/agent/chat"
)

// Thinking is stored apart from the answer, readable by another handle while it streams, and
// kept with the reply, its finish reason and its reasoning tokens once the run ends.
func TestRecordStoresThinkingApart(t *testing.T) {
	db := openTemp(t)
	sess := newSession(t, db)
	r := post(t, db, sess.ID, "why is the sky blue?")
	clock := newFakeClock()
	in := make(chan chat.Event)
	out := db.Record(r.RunID, in, clock)
	send := func(ev chat.Event) {
		in <- ev
		recv(t, out)
	}
	send(chat.Event{Kind: chat.EventStarted, Attempt: 1})
	send(chat.Event{Kind: chat.EventReasoning, Text: "Rayleigh scattering: "})
	send(chat.Event{Kind: chat.EventReasoning, Text: "shorter wavelengths scatter more."})
	send(chat.Event{Kind: chat.EventDelta, Text: "Blue light "})
	clock.Advance(flushDelay)
	other := openAgain(t, db)
	waitFor(t, func() bool {
		m := reply(t, other, sess.ID)
		return m.Content == "Blue light " && m.Reasoning == "Rayleigh scattering: shorter wavelengths scatter more."
	})
	send(chat.Event{Kind: chat.EventDelta, Text: "scatters most."})
	send(chat.Event{Kind: chat.EventUsage, Usage: chat.Usage{PromptTokens: 9, CompletionTokens: 40, ReasoningTokens: 30}})
	in <- chat.Event{Kind: chat.EventFinished, FinishReason: "length"}
	recv(t, out)

	m := reply(t, other, sess.ID)
	if m.Content != "Blue light scatters most." || m.Reasoning != "Rayleigh scattering: shorter wavelengths scatter more." ||
		m.FinishReason != "length" || m.Status != chat.StatusSucceeded {
		t.Errorf("stored %q / %q, finish %q, %s", m.Content, m.Reasoning, m.FinishReason, m.Status)
	}
	run, err := db.Run(r.RunID)
	if err != nil || run.Usage.ReasoningTokens != 30 || run.FinishReason != "length" {
		t.Errorf("run %+v, %v", run, err)
	}
	var chunks int
	if err := db.sql.QueryRow(`SELECT count(*) FROM reply_chunks`).Scan(&chunks); err != nil || chunks != 0 {
		t.Errorf("%d chunks left after the run ended (%v)", chunks, err)
	}
	// The next request carries the answer; its thinking goes with it only for the agent to
	// leave out (or send, where a profile asks).
	next := post(t, db, sess.ID, "and at sunset?")
	msgs, err := db.Context(next.AnchorID)
	if err != nil || len(msgs) != 3 || msgs[1].Content != m.Content || msgs[1].Reasoning != m.Reasoning {
		t.Errorf("context %+v, %v", msgs, err)
	}
}

func reply(t *testing.T, db *DB, sessionID string) Message {
	t.Helper()
	msgs, err := db.AllMessages(sessionID)
	if err != nil || len(msgs) < 2 {
		t.Fatalf("messages %+v, %v", msgs, err)
	}
	return msgs[len(msgs)-1]
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatal("condition not met within 5s")
}
