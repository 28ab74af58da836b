package history

import (
	"bytes"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"parley/agent"
	"parley/retry"
)

// replyText reads a run's reply as stored.
func replyText(t *testing.T, db *DB, runID int64) string {
	t.Helper()
	var s string
	if err := db.sql.QueryRow(`SELECT m.content FROM messages m JOIN runs r ON r.reply_id = m.id WHERE r.id = ?`,
		runID).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// recv takes the next forwarded event, failing the test if none comes soon.
func recv(t *testing.T, out <-chan agent.Event) agent.Event {
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
	return agent.Event{}
}

// drain reads out to its end.
func drain(t *testing.T, out <-chan agent.Event) []agent.Event {
	t.Helper()
	var got []agent.Event
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

func TestRecordBatchesDeltas(t *testing.T) {
	db := openTemp(t)
	r := post(t, db, newSession(t, db).ID, "tell me")
	clock := newFakeClock()
	in := make(chan agent.Event)
	out := db.Record(r.RunID, in, clock)

	in <- agent.Event{Kind: agent.EventStarted, Attempt: 1, MaxAttempts: 3}
	recv(t, out)
	in <- agent.Event{Kind: agent.EventDelta, Text: "Once "}
	recv(t, out)
	if d := waitAsked(t, clock); d != 250*time.Millisecond {
		t.Fatalf("flush timer of %v, want 250ms", d)
	}
	in <- agent.Event{Kind: agent.EventDelta, Text: "upon "}
	recv(t, out)
	clock.Advance(249 * time.Millisecond)
	in <- agent.Event{Kind: agent.EventDelta, Text: "a time"}
	recv(t, out)
	if run, _ := db.Run(r.RunID); run.Status != StatusRunning {
		t.Errorf("status while streaming = %s, want running", run.Status)
	}
	if got := replyText(t, db, r.RunID); got != "" {
		t.Fatalf("reply written before 250 ms passed: %q", got)
	}

	// Time passes; no further event comes, yet the text reaches the database.
	clock.Advance(time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for replyText(t, db, r.RunID) != "Once upon a time" {
		if time.Now().After(deadline) {
			t.Fatalf("reply after the flush time = %q", replyText(t, db, r.RunID))
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case d := <-clock.Asked():
		t.Fatalf("a second timer (%v) was started with nothing left to write", d)
	default:
	}

	// The next delta starts a new batch.
	in <- agent.Event{Kind: agent.EventDelta, Text: "."}
	recv(t, out)
	waitAsked(t, clock)
	in <- agent.Event{Kind: agent.EventFinished, FinishReason: "stop"}
	recv(t, out)
	if got := replyText(t, db, r.RunID); got != "Once upon a time." {
		t.Errorf("reply after finishing = %q", got)
	}
	close(in)
	if rest := drain(t, out); len(rest) != 0 {
		t.Errorf("events after the terminal one: %v", rest)
	}
}

func TestRecordTerminalEvents(t *testing.T) {
	overloaded := retry.Classification{Retryable: true, Class: retry.Overloaded, Label: "Provider overloaded",
		Message: "Overloaded"}
	for _, c := range []struct {
		name   string
		events []agent.Event
		// closeEarly closes the input without a terminal event.
		closeEarly bool
		status     RunStatus
		class      *retry.Classification
		text       string
	}{
		{
			name: "finished",
			events: []agent.Event{{Kind: agent.EventStarted, Attempt: 1}, {Kind: agent.EventDelta, Text: "hi"},
				{Kind: agent.EventFinished, FinishReason: "stop"}},
			status: StatusSucceeded, text: "hi",
		},
		{
			name: "failed mid-reply",
			events: []agent.Event{{Kind: agent.EventStarted, Attempt: 1}, {Kind: agent.EventDelta, Text: "par"},
				{Kind: agent.EventFailed, Class: overloaded}},
			status: StatusFailed, class: &overloaded, text: "par",
		},
		{
			name: "cancelled",
			events: []agent.Event{{Kind: agent.EventStarted, Attempt: 1}, {Kind: agent.EventDelta, Text: "stop"},
				{Kind: agent.EventCancelled}},
			status: StatusCancelled, text: "stop",
		},
		{
			name: "cancel reported as a failure",
			events: []agent.Event{{Kind: agent.EventStarted, Attempt: 1},
				{Kind: agent.EventFailed, Class: retry.Classification{Class: retry.Cancelled, Label: "Cancelled"}}},
			status: StatusCancelled,
		},
		{
			name: "failed before any request",
			events: []agent.Event{{Kind: agent.EventFailed, Class: retry.Classification{
				Class: retry.CredentialsUnresolved, Label: "API key not set", Message: "OPENAI_API_KEY is not set"}}},
			status: StatusFailed,
			class: &retry.Classification{Class: retry.CredentialsUnresolved, Label: "API key not set",
				Message: "OPENAI_API_KEY is not set"},
		},
		{
			name:   "cancelled while queued",
			events: []agent.Event{{Kind: agent.EventCancelled}},
			status: StatusCancelled,
		},
		{
			name:       "events stop without an end",
			events:     []agent.Event{{Kind: agent.EventStarted, Attempt: 1}, {Kind: agent.EventDelta, Text: "cut"}},
			closeEarly: true,
			status:     StatusFailed, class: &endedWithoutResult, text: "cut",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := openTemp(t)
			r := post(t, db, newSession(t, db).ID, "q")
			in := make(chan agent.Event, len(c.events))
			for _, ev := range c.events {
				in <- ev
			}
			if c.closeEarly {
				close(in)
			}
			out := db.Record(r.RunID, in, newFakeClock())
			var got []agent.Event
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
				want = append(append([]agent.Event(nil), c.events...), agent.Event{Kind: agent.EventFailed, Class: endedWithoutResult})
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("forwarded %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestRecordCountsAttemptsAndUsage(t *testing.T) {
	db := openTemp(t)
	r := post(t, db, newSession(t, db).ID, "q")
	events := []agent.Event{
		{Kind: agent.EventStarted, Attempt: 1, MaxAttempts: 3},
		{Kind: agent.EventRetrying, Attempt: 2, MaxAttempts: 3, Wait: time.Second,
			Class: retry.Classification{Retryable: true, Class: retry.Overloaded}},
		{Kind: agent.EventStarted, Attempt: 2, MaxAttempts: 3},
		{Kind: agent.EventUsage, Usage: agent.Usage{PromptTokens: 100, CompletionTokens: 0}},
		{Kind: agent.EventDelta, Text: "ok"},
		{Kind: agent.EventUsage, Usage: agent.Usage{PromptTokens: 5, CompletionTokens: 7}},
		{Kind: agent.EventFinished, FinishReason: "stop"},
	}
	in := make(chan agent.Event, len(events))
	for _, ev := range events {
		in <- ev
	}
	close(in)
	got := drain(t, db.Record(r.RunID, in, newFakeClock()))
	if !reflect.DeepEqual(got, events) {
		t.Errorf("forwarded %+v\nwant %+v", got, events)
	}
	run, err := db.Run(r.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != StatusSucceeded || run.Attempts != 2 || run.Usage != (agent.Usage{PromptTokens: 105, CompletionTokens: 7}) {
		t.Errorf("run = %+v, want succeeded after 2 attempts using 105+7 tokens", run)
	}
}

func TestRecordKeepsForwardingOnDatabaseErrors(t *testing.T) {
	var logged bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))
	defer slog.SetDefault(prev)

	db := openTemp(t)
	events := []agent.Event{{Kind: agent.EventStarted, Attempt: 1}, {Kind: agent.EventDelta, Text: "x"},
		{Kind: agent.EventFinished}}
	in := make(chan agent.Event, len(events))
	for _, ev := range events {
		in <- ev
	}
	close(in)
	// Run 4242 does not exist: every write fails.
	got := drain(t, db.Record(4242, in, newFakeClock()))
	if !reflect.DeepEqual(got, events) {
		t.Errorf("forwarded %+v, want %+v", got, events)
	}
	if s := logged.String(); !strings.Contains(s, "run=4242") || !strings.Contains(s, "not found") {
		t.Errorf("log = %q, want the failures logged", s)
	}
}

func TestRecordDoesNotWaitForTheReader(t *testing.T) {
	db := openTemp(t)
	r := post(t, db, newSession(t, db).ID, "q")
	clock := newFakeClock()
	in := make(chan agent.Event)
	out := db.Record(r.RunID, in, clock)
	// Nobody reads out while the run streams.
	in <- agent.Event{Kind: agent.EventStarted, Attempt: 1}
	in <- agent.Event{Kind: agent.EventDelta, Text: "unread "}
	in <- agent.Event{Kind: agent.EventDelta, Text: "text"}
	waitAsked(t, clock)
	clock.Advance(flushDelay)
	deadline := time.Now().Add(5 * time.Second)
	for replyText(t, db, r.RunID) != "unread text" {
		if time.Now().After(deadline) {
			t.Fatalf("reply = %q while the reader was away", replyText(t, db, r.RunID))
		}
		time.Sleep(time.Millisecond)
	}
	in <- agent.Event{Kind: agent.EventFinished}
	close(in)
	if got := drain(t, out); len(got) != 4 {
		t.Errorf("forwarded %d events, want 4", len(got))
	}
}
