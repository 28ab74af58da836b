package tui

import (
	"strings"
	"testing"

	"parley/history/historytest"
	"parley/internal/chat"
	"parley/internal/demo"
	"parley/internal/sanitize"
)

// These tests run the model against a real demo endpoint on 127.0.0.1 and a real database.

func TestSendStreamsAndStoresReply(t *testing.T) {
	t.Parallel()
	d, srv, _, db := demoScreen(t, screenConfig{})
	d.typeAndSend("what are the keys?")
	d.until("the reply to finish", func(m Model) bool {
		return m.active == nil && m.transcript.Len() == 2 && m.transcript.Status(lastReply(t, m).message.ID) == chat.StatusSucceeded
	})
	reply := lastReply(t, d.m)
	stored := storedReply(t, db, d.m.session.ID, reply.message.ID)
	if stored.Status != chat.StatusSucceeded || stored.Content == "" {
		t.Fatalf("stored reply: %+v", stored)
	}
	if sanitize.String(stored.Content) != reply.text {
		t.Fatal("the screen's text differs from the stored reply")
	}
	if d.m.session.Title == "" || !strings.Contains(plain(d.m), d.m.session.Title) {
		t.Fatalf("header should show the session's title %q", d.m.session.Title)
	}
	if !strings.Contains(plain(d.m), "demo") {
		t.Fatal("header should say it is the demo")
	}
	if srv.Requests() != 1 {
		t.Fatalf("%d requests, want 1", srv.Requests())
	}
}

func TestEscCancelsRunKeepingPartialText(t *testing.T) {
	t.Parallel()
	d, srv, db := streamingScreen(t, "tell me a long story")
	d.send(press("esc"))
	if d.m.focus != focusInput {
		t.Fatal("esc during a run should cancel, not move the focus")
	}
	d.until("the run to end", func(m Model) bool { return m.active == nil })
	reply := lastReply(t, d.m)
	if reply.message.Status != chat.StatusCancelled {
		t.Fatalf("reply status %q, want cancelled", reply.message.Status)
	}
	stored := storedReply(t, db, d.m.session.ID, reply.message.ID)
	if stored.Status != chat.StatusCancelled || stored.Retry != nil {
		t.Fatalf("stored %q with %+v, want cancelled and no failure", stored.Status, stored.Retry)
	}
	if stored.Content == "" || sanitize.String(stored.Content) != reply.text {
		t.Fatalf("partial text not kept: stored %q, shown %q", stored.Content, reply.text)
	}
	if !strings.Contains(plain(d.m), "cancelled") {
		t.Fatalf("screen does not say cancelled:\n%s", plain(d.m))
	}
	d.sendsNextOnly(srv, 1, "and now?")
}

func TestSendingDuringARunQueues(t *testing.T) {
	t.Parallel()
	d, srv, _, db := demoScreen(t, screenConfig{demo: queueable})
	d.queueBehind("first question", "second question", "third question")
	if !strings.Contains(plain(d.m), "queued: sends when the current reply ends") || !strings.Contains(plain(d.m), "2 queued") {
		t.Fatalf("queued messages not shown as queued:\n%s", plain(d.m))
	}
	msgs, err := db.Transcript(d.m.session.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 6 || msgs[3].Status != chat.StatusQueued || msgs[5].Status != chat.StatusQueued {
		t.Fatalf("stored transcript: %+v", msgs)
	}
	if msgs[2].Content != "second question" || msgs[4].Content != "third question" {
		t.Fatal("queued messages stored out of order")
	}
	d.until("every run to finish", func(m Model) bool {
		return m.active == nil && len(m.queue) == 0 && m.transcript.Status(msgs[5].ID) == chat.StatusSucceeded
	})
	msgs, _ = db.Transcript(d.m.session.ID)
	for _, i := range []int{1, 3, 5} {
		if msgs[i].Status != chat.StatusSucceeded {
			t.Fatalf("reply %d: %q", i, msgs[i].Status)
		}
	}
	if srv.Requests() != 3 {
		t.Fatalf("%d requests, want 3", srv.Requests())
	}
	// The second run was sent after the first reply, so it carries it as context.
	got := srv.Received()[1].Messages
	if len(got) < 3 || got[len(got)-1].Content != "second question" || got[len(got)-2].Role != "assistant" {
		t.Fatalf("second request's messages: %+v", got)
	}
}

func TestQuitCancelsQueuedRuns(t *testing.T) {
	t.Parallel()
	d, srv, _, db := demoScreen(t, screenConfig{demo: cancellable})
	d.queueBehind("first", "second")
	queued := d.m.queue[0]
	d.send(press("ctrl+d")) // empty input, run active: asks first
	d.send(press("ctrl+d")) // cancel, then quit
	d.until("quit", func(Model) bool { return d.quit })
	r, err := db.Run(queued.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != chat.StatusCancelled {
		t.Fatalf("queued run left %q, want cancelled", r.Status)
	}
	if srv.Requests() != 1 {
		t.Fatalf("%d requests, want 1", srv.Requests())
	}
}

func TestFailedRunShowsLabelAndMessage(t *testing.T) {
	t.Parallel()
	d, _, _, _ := demoScreen(t, screenConfig{faults: []demo.Fault{demo.Quota()}})
	d.typeAndSend("hello")
	d.until("the run to end", func(m Model) bool { return m.active == nil && m.transcript.Len() == 2 })
	reply := lastReply(t, d.m)
	if reply.message.Status != chat.StatusFailed || reply.message.Retry == nil || reply.message.Retry.Retryable {
		t.Fatalf("reply: %+v", reply.message)
	}
	want := "✗ " + reply.message.Retry.Label + " — "
	if !strings.Contains(plain(d.m), want) {
		t.Fatalf("screen lacks %q:\n%s", want, plain(d.m))
	}
}

func TestUnstoredMessageIsGivenBack(t *testing.T) {
	t.Parallel()
	db := historytest.Open(t)
	m, _ := openOffline(t, db, newSessionIn(t, db), 80, 24)
	db.Close()
	m = typeText(m, "do not lose me")
	m, cmd := step(m, press("enter"))
	if !m.input.Empty() {
		t.Fatal("input not cleared on send")
	}
	m = runCmds(m, cmd)
	if m.input.Value() != "do not lose me" {
		t.Fatalf("input %q, want the unsent message back", m.input.Value())
	}
	if !m.noticeErr || !strings.Contains(plain(m), "could not store the message") {
		t.Fatalf("no error shown:\n%s", plain(m))
	}
	if m.active != nil || m.transcript.Len() != 0 {
		t.Fatal("an unstored message must not start a run")
	}
}
