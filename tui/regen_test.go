package tui

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"parley/agent/chat"
	"parley/agent/demo"
	"parley/history"
)

// Regenerating with r and /regen, against a demo endpoint and a real database.

// answered reports whether the screen shows n messages, the last a finished reply, with
// nothing running or waiting.
func answered(t *testing.T, n int) func(Model) bool {
	return func(m Model) bool {
		return m.active == nil && len(m.queue) == 0 && !m.posting && m.transcript.Len() == n &&
			lastReply(t, m).message.Status == chat.StatusSucceeded
	}
}

// liveIDs returns the ids of the session's live messages.
func liveIDs(t *testing.T, db *history.DB, sessionID string) []int64 {
	t.Helper()
	msgs, err := db.Transcript(sessionID)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, m := range msgs {
		out = append(out, m.ID)
	}
	return out
}

func TestRegenerateNewestAndEarlierReply(t *testing.T) {
	db := openDB(t)
	srv, client := startDemo(t, demo.Options{})
	d := newDriver(t, newModel(t, db, client, srv, 100, 30))
	for i, q := range []string{"first question", "second question", "third question"} {
		d.typeAndSend(q)
		d.until("reply "+q, answered(t, 2*(i+1)))
	}
	sid := d.m.session.ID
	before, err := db.AllMessages(sid)
	if err != nil {
		t.Fatal(err)
	}
	q1, a1, q2, a2, q3, a3 := before[0].ID, before[1].ID, before[2].ID, before[3].ID, before[4].ID, before[5].ID

	// r on the newest reply, selected by default.
	d.send(press("esc"))
	if d.m.transcript.Selected() != a3 {
		t.Fatalf("selected %d, want the newest reply %d", d.m.transcript.Selected(), a3)
	}
	d.send(press("r"))
	d.until("the regenerated reply", func(m Model) bool { return srv.Requests() == 4 && answered(t, 6)(m) })
	got := srv.Received()
	if !reflect.DeepEqual(got[3].Messages, got[2].Messages) {
		t.Fatalf("regenerated request %+v, original %+v", got[3].Messages, got[2].Messages)
	}
	live := liveIDs(t, db, sid)
	a3b := live[5]
	if !slices.Equal(live[:5], []int64{q1, a1, q2, a2, q3}) || a3b == a3 {
		t.Fatalf("live transcript %v", live)
	}
	if d.m.transcript.byID[a3] != nil || d.m.transcript.Selected() != a3b {
		t.Fatal("the superseded reply is still on screen, or the new one is not selected")
	}

	// k selects the earlier reply; r supersedes it and everything after it.
	d.send(press("k"))
	if d.m.transcript.Selected() != a2 {
		t.Fatalf("selected %d, want %d", d.m.transcript.Selected(), a2)
	}
	d.send(press("r"))
	d.until("the earlier reply regenerated", func(m Model) bool { return srv.Requests() == 5 && answered(t, 4)(m) })
	got = srv.Received()
	if !reflect.DeepEqual(got[4].Messages, got[1].Messages) {
		t.Fatalf("regenerated request %+v, original %+v", got[4].Messages, got[1].Messages)
	}
	if last := got[4].Messages[len(got[4].Messages)-1]; last.Content != "second question" {
		t.Fatalf("the request does not end at the anchor: %+v", last)
	}
	live = liveIDs(t, db, sid)
	if !slices.Equal(live[:3], []int64{q1, a1, q2}) || len(live) != 4 || live[3] == a2 {
		t.Fatalf("live transcript %v", live)
	}
	for _, s := range []string{"first question", "second question"} {
		if !strings.Contains(plain(d.m), s) {
			t.Fatalf("screen lacks %q:\n%s", s, plain(d.m))
		}
	}
	if strings.Contains(plain(d.m), "third question") {
		t.Fatalf("the superseded question is still shown:\n%s", plain(d.m))
	}

	all, err := db.AllMessages(sid)
	if err != nil {
		t.Fatal(err)
	}
	var superseded []int64
	users := 0
	for _, m := range all {
		if m.Superseded {
			superseded = append(superseded, m.ID)
		}
		if m.Role == history.RoleUser {
			users++
		}
	}
	if want := []int64{a2, q3, a3, a3b}; !slices.Equal(superseded, want) {
		t.Fatalf("superseded %v, want %v", superseded, want)
	}
	if users != 3 {
		t.Fatalf("%d operator rows, want one per message typed (3)", users)
	}
	for i, id := range []int64{q1, q2, q3} {
		if all[slices.IndexFunc(all, func(m history.Message) bool { return m.ID == id })].Content != before[2*i].Content {
			t.Fatalf("operator message %d changed", id)
		}
	}
}

func TestRegenQueuesBehindTheActiveRun(t *testing.T) {
	db := openDB(t)
	srv, client := startDemo(t, demo.Options{Pace: 10 * time.Millisecond, Tokens: 60})
	d := newDriver(t, newModel(t, db, client, srv, 100, 30))
	d.typeAndSend("first")
	d.until("the first reply", answered(t, 2))
	d.typeAndSend("second")
	d.until("the second reply to stream", func(m Model) bool { return m.active != nil && m.active.gotDelta })
	streamingRun := d.m.active.rcpt
	d.typeAndSend("/regen")
	d.until("the regeneration to queue", func(m Model) bool { return len(m.queue) == 1 })
	if d.m.active == nil || d.m.active.rcpt.RunID != streamingRun.RunID || !strings.Contains(plain(d.m), "1 queued") {
		t.Fatalf("the active run should go on, the regeneration wait:\n%s", plain(d.m))
	}
	d.until("both runs", answered(t, 4))
	if srv.Requests() != 3 {
		t.Fatalf("%d requests, want 3", srv.Requests())
	}
	got := srv.Received()
	if !reflect.DeepEqual(got[2].Messages, got[1].Messages) {
		t.Fatalf("regenerated request %+v, original %+v", got[2].Messages, got[1].Messages)
	}
	if slices.Contains(liveIDs(t, db, d.m.session.ID), streamingRun.ReplyID) {
		t.Fatal("the reply streaming when /regen was typed is still live")
	}
}

func TestRegenCancelsASupersededQueuedRun(t *testing.T) {
	db := openDB(t)
	srv, client := startDemo(t, demo.Options{Pace: 10 * time.Millisecond, Tokens: 60})
	d := newDriver(t, newModel(t, db, client, srv, 100, 30))
	d.typeAndSend("first")
	d.until("the first reply to stream", func(m Model) bool { return m.active != nil && m.active.gotDelta })
	d.typeAndSend("second")
	d.until("the second to queue", func(m Model) bool { return len(m.queue) == 1 })
	queued := d.m.queue[0]
	d.typeAndSend("/regen") // the newest reply is the queued one
	d.until("the regeneration to replace it", func(m Model) bool { return len(m.queue) == 1 && m.queue[0].RunID != queued.RunID })
	d.until("every run", answered(t, 4))
	if r, err := db.Run(queued.RunID); err != nil || r.Status != chat.StatusCancelled {
		t.Fatalf("the superseded queued run is %+v, %v; want cancelled", r, err)
	}
	if srv.Requests() != 2 {
		t.Fatalf("%d requests, want 2: the superseded run is never sent", srv.Requests())
	}
}

func TestRegenerateRefusals(t *testing.T) {
	m := loaded(t, nil, 80, 24)
	m, _ = step(m, press("esc"))
	m, cmd := step(m, press("r"))
	if cmd != nil || m.notice != "" {
		t.Fatal("r with no reply selected did something")
	}
	m, _ = step(m, press("esc"))
	m = typeText(m, "/regen")
	m, cmd = step(m, press("enter"))
	if cmd != nil || !m.noticeErr || !strings.Contains(m.notice, "no reply to regenerate") {
		t.Fatalf("/regen with no reply: notice %q", m.notice)
	}
}

// versionsDB stores one question answered twice: the first answer superseded by the second.
func versionsDB(t *testing.T) (*history.DB, history.Session) {
	t.Helper()
	db := openDB(t)
	s, err := db.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	answer := func(r history.Receipt, text string) {
		if err := db.StartRun(r.RunID); err != nil {
			t.Fatal(err)
		}
		if err := db.AppendReply(r.RunID, text); err != nil {
			t.Fatal(err)
		}
		if err := db.FinishRun(r.RunID, history.Finish{Status: chat.StatusSucceeded, Attempts: 1}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := db.Post(s.ID, "Name a colour.", "test-model", false)
	if err != nil {
		t.Fatal(err)
	}
	answer(r, "Blue, the **first** answer.")
	g, err := db.Regenerate(r.AnchorID, "test-model", false)
	if err != nil {
		t.Fatal(err)
	}
	answer(g, "Green, the second answer.")
	s, err = db.Session(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	return db, s
}

// runCmds runs cmd and hands the model every message it gives.
func runCmds(m Model, cmd tea.Cmd) Model {
	for _, msg := range execCmd(cmd, 5*time.Second) {
		m, _ = step(m, msg)
	}
	return m
}

func TestVersionsCycleThroughEarlierReplies(t *testing.T) {
	db, s := versionsDB(t)
	m := openModel(t, db, offlineClient(), nil, s, 80, 24)
	m, _ = step(m, press("esc"))
	m, cmd := step(m, press("]"))
	m = runCmds(m, cmd)
	if m.focus != focusTranscript || !strings.Contains(m.notice, "no later version") {
		t.Fatalf("] on the live reply: focus %v, notice %q", m.focus, m.notice)
	}
	m, cmd = step(m, press("["))
	m = runCmds(m, cmd)
	if m.focus != focusVersions {
		t.Fatalf("[ did not open the versions:\n%s", plain(m))
	}
	screen := plain(m)
	if !strings.Contains(screen, "Version 1/2 · superseded") || !strings.Contains(screen, "Blue, the first answer.") ||
		strings.Contains(screen, "Green") {
		t.Fatalf("version 1:\n%s", screen)
	}
	m, _ = step(m, press("]"))
	if s := plain(m); !strings.Contains(s, "Version 2/2 · live") || !strings.Contains(s, "Green, the second answer.") {
		t.Fatalf("version 2:\n%s", s)
	}
	m, _ = step(m, press("]")) // stays on the newest
	if !strings.Contains(plain(m), "Version 2/2") {
		t.Fatalf("] past the newest:\n%s", plain(m))
	}
	m, _ = step(m, press("["))
	golden.RequireEqual(t, asciiView(m))
	m, _ = step(m, press("esc"))
	if m.focus != focusTranscript || strings.Contains(plain(m), "Version") || !strings.Contains(plain(m), "Green") {
		t.Fatalf("esc did not close the versions:\n%s", plain(m))
	}
}

func TestVersionsOfAReplyWithOnlyOne(t *testing.T) {
	db := openDB(t)
	s, err := db.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Post(s.ID, "only once", "test-model", false); err != nil {
		t.Fatal(err)
	}
	m := openModel(t, db, offlineClient(), nil, s, 80, 24)
	m, _ = step(m, press("esc"))
	m, cmd := step(m, press("["))
	m = runCmds(m, cmd)
	if m.focus != focusTranscript || !strings.Contains(m.notice, "only one version") {
		t.Fatalf("focus %v, notice %q", m.focus, m.notice)
	}
}
