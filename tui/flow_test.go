package tui

import (
	"bytes"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"parley/history"
	"parley/internal/chat"
	"parley/internal/chat/chattest"
	"parley/internal/demo"
)

// These flows run the whole Bubble Tea program against a demo endpoint and a real database.

// startProgram runs m as a Bubble Tea program in a 100×30 terminal without colors.
func startProgram(t *testing.T, m Model) *teatest.TestModel {
	t.Helper()
	return teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
}

// startFlow runs the program on a new session against a new demo endpoint with opts, and
// waits for its first frame.
func startFlow(t *testing.T, opts demo.Options) (*teatest.TestModel, Options, *demo.Server) {
	t.Helper()
	o, srv, _ := demoOptions(t, screenConfig{demo: opts})
	tm := startProgram(t, New(o))
	waitFor(t, tm, "idle")
	return tm, o, srv
}

// sendLine types text into the program and presses enter.
func sendLine(tm *teatest.TestModel, text string) {
	tm.Type(text)
	tm.Send(press("enter"))
}

// finalModel waits for the program to end and returns its model.
func finalModel(t *testing.T, tm *teatest.TestModel) Model {
	t.Helper()
	return tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
}

// replyStatus returns the status and text of the stored reply number n (from 0) of session id.
func replyStatus(db *history.DB, id string, n int) (chat.Status, string) {
	msgs, err := db.Transcript(id)
	if err != nil || len(msgs) < 2*n+2 {
		return "", ""
	}
	return msgs[2*n+1].Status, msgs[2*n+1].Content
}

// waitFor waits until the program's output, from the last wait on, contains marker.
func waitFor(t *testing.T, tm *teatest.TestModel, marker string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(marker)) },
		teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
}

func TestFlowSendCancelQuit(t *testing.T) {
	t.Parallel()
	tm, o, _ := startFlow(t, cancellable)
	db, s := historyOf(o.DB), o.Session
	sendLine(tm, "tell me a story")
	chattest.WaitFor(t, "stored text", func() bool { _, text := replyStatus(db, s.ID, 0); return text != "" })
	tm.Send(press("esc"))
	chattest.WaitFor(t, "the cancel", func() bool { st, _ := replyStatus(db, s.ID, 0); return st == chat.StatusCancelled })
	waitFor(t, tm, "cancelled")
	// Just after the stop a ctrl+c was meant for the reply: it asks, and a second one quits.
	tm.Send(press("ctrl+c"))
	tm.Send(press("ctrl+c"))
	reply := lastReply(t, finalModel(t, tm))
	if reply.message.Status != chat.StatusCancelled || len(reply.text) == 0 {
		t.Fatalf("reply %q with %d bytes, want cancelled with its partial text", reply.message.Status, len(reply.text))
	}
	if got := storedReply(t, db, s.ID, reply.message.ID); got.Status != chat.StatusCancelled {
		t.Fatalf("stored %q", got.Status)
	}
}

func TestFlowQueueAndContinue(t *testing.T) {
	t.Parallel()
	tm, o, srv := startFlow(t, queueable)
	db, s := historyOf(o.DB), o.Session
	sendLine(tm, "first")
	chattest.WaitFor(t, "the first request", func() bool { return srv.Requests() == 1 })
	sendLine(tm, "second")
	chattest.WaitFor(t, "the second message queued", func() bool { st, _ := replyStatus(db, s.ID, 1); return st == chat.StatusQueued })
	waitFor(t, tm, "queued")
	chattest.WaitFor(t, "both replies", func() bool { st, _ := replyStatus(db, s.ID, 1); return st == chat.StatusSucceeded })
	// The screen hears of the end after it is stored: if the reply still streams there,
	// ctrl+d asks first and the second press quits; else the first quits.
	tm.Send(press("ctrl+d"))
	tm.Send(press("ctrl+d"))
	if n := finalModel(t, tm).transcript.Len(); n != 4 {
		t.Fatalf("%d messages on screen, want 4", n)
	}
	msgs := liveMessages(t, db, s.ID)
	if len(msgs) != 4 || msgs[2].Content != "second" || msgs[1].Status != chat.StatusSucceeded || msgs[3].Status != chat.StatusSucceeded {
		t.Fatalf("stored: %+v", msgs)
	}

	// Continuing the session shows the earlier exchange.
	latest, err := db.LatestSession()
	if err != nil {
		t.Fatal(err)
	}
	o.Session = latest
	tm = startProgram(t, New(o))
	waitFor(t, tm, "second")
	tm.Send(press("ctrl+c"))
	if n := finalModel(t, tm).transcript.Len(); n != 4 {
		t.Fatalf("continued session shows %d messages", n)
	}
}
