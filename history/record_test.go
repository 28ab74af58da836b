package history

import (
	"bytes"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/chat/chattest"
)

// replyText reads a run's reply as stored.
func replyText(t *testing.T, db *DB, runID int64) string {
	t.Helper()
	msgs, err := db.queryMessages(`WHERE m.id = (SELECT reply_id FROM runs WHERE id = ?)`, runID)
	if err != nil || len(msgs) != 1 {
		t.Fatalf("reading the reply of run %d: %v", runID, err)
	}
	return msgs[0].Content
}

// recv takes the next forwarded event, failing the test if none comes soon.
func recv(t *testing.T, out <-chan chat.Event) chat.Event {
	t.Helper()
	select {
	case ev, ok := <-out:
		if !ok {
			t.Fatal("output closed early")
		}
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no event forwarded")
	}
	return chat.Event{}
}

// drain reads out to its end.
func drain(t *testing.T, out <-chan chat.Event) []chat.Event {
	t.Helper()
	var got []chat.Event
	for {
		select {
		case ev, ok := <-out:
			if !ok {
				return got
			}
			got = append(got, ev)
		case <-time.After(5 * time.Second):
			t.Fatal("output not closed")
		}
	}
}

// recording is a run being recorded from a channel the test feeds.
type recording struct {
	db    *DB
	r     stored.Receipt
	clock *chattest.Clock
	in    chan chat.Event
	out   <-chan chat.Event
}

// send feeds ev to the recorder and returns what it forwards.
func (rec recording) send(t *testing.T, ev chat.Event) chat.Event {
	t.Helper()
	rec.in <- ev
	return recv(t, rec.out)
}

// startRecording posts content in a new session and records its run from a fresh channel.
func startRecording(t *testing.T, content string) recording {
	t.Helper()
	db := openTemp(t)
	r := post(t, db, newSession(t, db).ID, content)
	clock := chattest.New(chattest.Start)
	in := make(chan chat.Event)
	return recording{db: db, r: r, clock: clock, in: in, out: db.Record(r.RunID, in, clock)}
}

func TestRecordBatchesDeltas(t *testing.T) {
	t.Parallel()
	rec := startRecording(t, "tell me")
	db, r, clock, in, out := rec.db, rec.r, rec.clock, rec.in, rec.out

	rec.send(t, chat.Event{Kind: chat.EventStarted, Attempt: 1, MaxAttempts: 3})
	rec.send(t, chat.Event{Kind: chat.EventDelta, Text: "Once "})
	if d := clock.NextWait(t); d != 250*time.Millisecond {
		t.Fatalf("flush timer of %v, want 250ms", d)
	}
	rec.send(t, chat.Event{Kind: chat.EventDelta, Text: "upon "})
	clock.Advance(249 * time.Millisecond)
	rec.send(t, chat.Event{Kind: chat.EventDelta, Text: "a time"})
	// The run shows as running as soon as it begins: its writer starts it at once.
	chattest.WaitFor(t, "the run running", func() bool { run, _ := db.Run(r.RunID); return run.Status == chat.StatusRunning })
	if got := replyText(t, db, r.RunID); got != "" {
		t.Fatalf("reply written before 250 ms passed: %q", got)
	}

	// Time passes; no further event comes, yet the text reaches the database.
	clock.Advance(time.Millisecond)
	chattest.WaitFor(t, "the reply stored after the flush time", func() bool { return replyText(t, db, r.RunID) == "Once upon a time" })
	select {
	case d := <-clock.Asked():
		t.Fatalf("a second timer (%v) was started with nothing left to write", d)
	default:
	}

	// The next delta starts a new batch.
	rec.send(t, chat.Event{Kind: chat.EventDelta, Text: "."})
	clock.NextWait(t)
	rec.send(t, chat.Event{Kind: chat.EventFinished, FinishReason: "stop"})
	if got := replyText(t, db, r.RunID); got != "Once upon a time." {
		t.Errorf("reply after finishing = %q", got)
	}
	close(in)
	if rest := drain(t, out); len(rest) != 0 {
		t.Errorf("events after the terminal one: %v", rest)
	}
}

func TestRecordTerminalEvents(t *testing.T) {
	t.Parallel()
	overloaded := chat.Classification{Retryable: true, Class: chat.Overloaded, Label: "Provider overloaded",
		Message: "Overloaded"}
	for _, c := range []struct {
		name   string
		events []chat.Event
		// closeEarly closes the input without a terminal event.
		closeEarly bool
		status     chat.Status
		class      *chat.Classification
		text       string
	}{
		{
			name: "finished",
			events: []chat.Event{{Kind: chat.EventStarted, Attempt: 1}, {Kind: chat.EventDelta, Text: "hi"},
				{Kind: chat.EventFinished, FinishReason: "stop"}},
			status: chat.StatusSucceeded, text: "hi",
		},
		{
			name: "failed mid-reply",
			events: []chat.Event{{Kind: chat.EventStarted, Attempt: 1}, {Kind: chat.EventDelta, Text: "par"},
				{Kind: chat.EventFailed, Class: overloaded}},
			status: chat.StatusFailed, class: &overloaded, text: "par",
		},
		{
			name: "cancelled",
			events: []chat.Event{{Kind: chat.EventStarted, Attempt: 1}, {Kind: chat.EventDelta, Text: "stop"},
				{Kind: chat.EventCancelled}},
			status: chat.StatusCancelled, text: "stop",
		},
		{
			name: "cancel reported as a failure",
			events: []chat.Event{{Kind: chat.EventStarted, Attempt: 1},
				{Kind: chat.EventFailed, Class: chat.Classification{Class: chat.Cancelled, Label: "Cancelled"}}},
			status: chat.StatusCancelled,
		},
		{
			name: "failed before any request",
			events: []chat.Event{{Kind: chat.EventFailed, Class: chat.Classification{
				Class: chat.CredentialsUnresolved, Label: "API key not set", Message: "OPENAI_API_KEY is not set"}}},
			status: chat.StatusFailed,
			class: &chat.Classification{Class: chat.CredentialsUnresolved, Label: "API key not set",
				Message: "OPENAI_API_KEY is not set"},
		},
		{
			name:   "cancelled while queued",
			events: []chat.Event{{Kind: chat.EventCancelled}},
			status: chat.StatusCancelled,
		},
		{
			name:       "events stop without an end",
			events:     []chat.Event{{Kind: chat.EventStarted, Attempt: 1}, {Kind: chat.EventDelta, Text: "cut"}},
			closeEarly: true,
			status:     chat.StatusFailed, class: &chat.EndedWithoutResult, text: "cut",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := openTemp(t)
			r := post(t, db, newSession(t, db).ID, "q")
			in := make(chan chat.Event, len(c.events))
			for _, ev := range c.events {
				in <- ev
			}
			if c.closeEarly {
				close(in)
			}
			out := db.Record(r.RunID, in, chattest.New(chattest.Start))
			var got []chat.Event
			for {
				ev := recv(t, out)
				got = append(got, ev)
				if ev.Terminal() {
					// Forwarded only once stored: the database already says how it ended.
					run, err := db.Run(r.RunID)
					if err != nil {
						t.Fatal(err)
					}
					if run.Status != c.status {
						t.Errorf("status when the terminal event arrived = %s, want %s", run.Status, c.status)
					}
					if !reflect.DeepEqual(run.Retry, c.class) {
						t.Errorf("classification = %+v, want %+v", run.Retry, c.class)
					}
					if txt := replyText(t, db, r.RunID); txt != c.text {
						t.Errorf("reply = %q, want %q", txt, c.text)
					}
					break
				}
			}
			if !c.closeEarly {
				close(in)
			}
			got = append(got, drain(t, out)...)
			want := c.events
			if c.closeEarly {
				want = append(append([]chat.Event(nil), c.events...), chat.Event{Kind: chat.EventFailed, Class: chat.EndedWithoutResult})
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("forwarded %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestRecordCountsAttemptsAndUsage(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	r := post(t, db, newSession(t, db).ID, "q")
	events := []chat.Event{
		{Kind: chat.EventStarted, Attempt: 1, MaxAttempts: 3},
		{Kind: chat.EventRetrying, Attempt: 2, MaxAttempts: 3, Wait: time.Second,
			Class: chat.Classification{Retryable: true, Class: chat.Overloaded}},
		{Kind: chat.EventStarted, Attempt: 2, MaxAttempts: 3},
		{Kind: chat.EventUsage, Usage: chat.Usage{PromptTokens: 100, CompletionTokens: 0}},
		{Kind: chat.EventDelta, Text: "ok"},
		{Kind: chat.EventUsage, Usage: chat.Usage{PromptTokens: 5, CompletionTokens: 7}},
		{Kind: chat.EventFinished, FinishReason: "stop"},
	}
	in := make(chan chat.Event, len(events))
	for _, ev := range events {
		in <- ev
	}
	close(in)
	got := drain(t, db.Record(r.RunID, in, chattest.New(chattest.Start)))
	if !reflect.DeepEqual(got, events) {
		t.Errorf("forwarded %+v\nwant %+v", got, events)
	}
	run, err := db.Run(r.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != chat.StatusSucceeded || run.Attempts != 2 || run.Usage != (chat.Usage{PromptTokens: 105, CompletionTokens: 7}) {
		t.Errorf("run = %+v, want succeeded after 2 attempts using 105+7 tokens", run)
	}
}

func TestRecordKeepsForwardingOnDatabaseErrors(t *testing.T) {
	t.Parallel()
	var logged bytes.Buffer
	db := openTemp(t)
	db.SetLogger(slog.New(slog.NewTextHandler(&logged, nil)))
	events := []chat.Event{{Kind: chat.EventStarted, Attempt: 1}, {Kind: chat.EventDelta, Text: "x"},
		{Kind: chat.EventFinished}}
	in := make(chan chat.Event, len(events))
	for _, ev := range events {
		in <- ev
	}
	close(in)
	// Run 4242 does not exist: every write fails. Every event is forwarded, and the end says
	// the run was not saved, and where its text is.
	got := drain(t, db.Record(4242, in, chattest.New(chattest.Start)))
	if len(got) != len(events) || !reflect.DeepEqual(got[:2], events[:2]) || got[2].Kind != chat.EventFinished ||
		!strings.HasPrefix(got[2].NotStored, "not saved: ") || !strings.Contains(got[2].NotStored, db.Path()+".recovery") {
		t.Errorf("forwarded %+v, want %+v with NotStored", got, events)
	}
	if s := logged.String(); !strings.Contains(s, "run=4242") || !strings.Contains(s, "not found") {
		t.Errorf("log = %q, want the failures logged", s)
	}
}

func TestRecordDoesNotWaitForTheReader(t *testing.T) {
	t.Parallel()
	rec := startRecording(t, "q")
	db, r, clock, in, out := rec.db, rec.r, rec.clock, rec.in, rec.out
	// Nobody reads out while the run streams.
	in <- chat.Event{Kind: chat.EventStarted, Attempt: 1}
	in <- chat.Event{Kind: chat.EventDelta, Text: "unread "}
	in <- chat.Event{Kind: chat.EventDelta, Text: "text"}
	// Taken only once "text" is handed to the writer, so the flush below finds both deltas.
	in <- chat.Event{Kind: chat.EventUsage, Usage: chat.Usage{PromptTokens: 1, CompletionTokens: 2}}
	clock.NextWait(t)
	clock.Advance(flushDelay)
	chattest.WaitFor(t, "the reply stored while the reader was away", func() bool { return replyText(t, db, r.RunID) == "unread text" })
	in <- chat.Event{Kind: chat.EventFinished}
	close(in)
	if got := drain(t, out); len(got) != 5 {
		t.Errorf("forwarded %d events, want 5", len(got))
	}
}

// Thinking is stored apart from the answer, readable by another handle while it streams, and
// kept with the reply, its finish reason and its reasoning tokens once the run ends.
func TestRecordStoresThinkingApart(t *testing.T) {
	t.Parallel()
	rec := startRecording(t, "why is the sky blue?")
	db, r, clock := rec.db, rec.r, rec.clock
	rec.send(t, chat.Event{Kind: chat.EventStarted, Attempt: 1})
	rec.send(t, chat.Event{Kind: chat.EventReasoning, Text: "Rayleigh scattering: "})
	rec.send(t, chat.Event{Kind: chat.EventReasoning, Text: "shorter wavelengths scatter more."})
	rec.send(t, chat.Event{Kind: chat.EventDelta, Text: "Blue light "})
	clock.Advance(flushDelay)
	other := openAgain(t, db)
	chattest.WaitFor(t, "the answer and its thinking readable by another handle", func() bool {
		m := reply(t, other, r.SessionID)
		return m.Content == "Blue light " && m.Reasoning == "Rayleigh scattering: shorter wavelengths scatter more."
	})
	rec.send(t, chat.Event{Kind: chat.EventDelta, Text: "scatters most."})
	rec.send(t, chat.Event{Kind: chat.EventUsage, Usage: chat.Usage{PromptTokens: 9, CompletionTokens: 40, ReasoningTokens: 30}})
	rec.send(t, chat.Event{Kind: chat.EventFinished, FinishReason: "length"})

	m := reply(t, other, r.SessionID)
	if m.Content != "Blue light scatters most." || m.Reasoning != "Rayleigh scattering: shorter wavelengths scatter more." ||
		m.FinishReason != "length" || m.Status != chat.StatusSucceeded {
		t.Errorf("stored %q / %q, finish %q, %s", m.Content, m.Reasoning, m.FinishReason, m.Status)
	}
	run, err := db.Run(r.RunID)
	if err != nil || run.Usage.ReasoningTokens != 30 || run.FinishReason != "length" {
		t.Errorf("run %+v, %v", run, err)
	}
	// The text is folded once the end has been taken: wait for that, not for a time.
	chattest.WaitFor(t, "the text folded", func() bool {
		var chunks int
		err := db.pool().QueryRow(`SELECT count(*) FROM reply_chunks`).Scan(&chunks)
		return err == nil && chunks == 0
	})
	// The next request carries the answer; its thinking goes with it only for the agent to
	// leave out (or send, where a profile asks).
	next := post(t, db, r.SessionID, "and at sunset?")
	msgs, err := db.Context(next.AnchorID)
	if err != nil || len(msgs) != 3 || msgs[1].Content != m.Content || msgs[1].Reasoning != m.Reasoning {
		t.Errorf("context %+v, %v", msgs, err)
	}
}

func reply(t *testing.T, db *DB, sessionID string) stored.Message {
	t.Helper()
	msgs, err := db.AllMessages(sessionID)
	if err != nil || len(msgs) < 2 {
		t.Fatalf("messages %+v, %v", msgs, err)
	}
	return msgs[len(msgs)-1]
}

// The recorder stores every ending as chat.Decide decides it; the chat screen and print mode
// are held to the same table in their own packages.
func TestRecordStoresEveryEndingAsDecided(t *testing.T) {
	t.Parallel()
	chattest.CheckEndings(t, func(t *testing.T, e chattest.Ending) chat.Outcome {
		db := openTemp(t)
		r := post(t, db, newSession(t, db).ID, "q")
		for range db.Record(r.RunID, e.Feed(), chattest.New(chattest.Start)) {
		}
		run, err := db.Run(r.RunID)
		if err != nil {
			t.Fatal(err)
		}
		return chat.Outcome{Status: run.Status, Retry: run.Retry}
	})
}
