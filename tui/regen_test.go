package tui

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"parley/history"
	"parley/history/stored"
	"parley/internal/chat"
)

// Regenerating with r and /regen, against a demo endpoint and a real database.

// liveIDs returns the ids of the session's live messages.
func liveIDs(t *testing.T, db *history.DB, sessionID string) []int64 {
	var ids []int64
	for _, msg := range liveMessages(t, db, sessionID) {
		ids = append(ids, msg.ID)
	}
	return ids
}

func TestRegenerateNewestAndEarlierReply(t *testing.T) {
	t.Parallel()
	d, srv, _, db := demoScreen(t, screenConfig{})
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
	d.selectReplies()
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
	if _, shown := d.m.transcript.Message(a3); shown || d.m.transcript.Selected() != a3b {
		t.Fatal("the superseded reply is still on screen, or the new one is not selected")
	}

	// k twice selects the earlier reply, past the third question; r asks first, then
	// supersedes it and everything after it.
	d.send(press("k"))
	d.send(press("k"))
	if d.m.transcript.Selected() != a2 {
		t.Fatalf("selected %d, want %d", d.m.transcript.Selected(), a2)
	}
	d.send(press("r"))
	d.pump(200 * time.Millisecond)
	if srv.Requests() != 4 || !strings.Contains(plain(d.m), "r again to regenerate from here — 2 later messages will be superseded") {
		t.Fatalf("%d requests after one r on an earlier reply; screen:\n%s", srv.Requests(), plain(d.m))
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
		if m.Role == chat.RoleUser {
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
		if all[slices.IndexFunc(all, func(m stored.Message) bool { return m.ID == id })].Content != before[2*i].Content {
			t.Fatalf("operator message %d changed", id)
		}
	}
}

func TestRegenQueuesBehindTheActiveRun(t *testing.T) {
	t.Parallel()
	d, srv, _, db := demoScreen(t, screenConfig{demo: queueable})
	d.typeAndSend("first")
	d.until("the first reply", answered(t, 2))
	d.sendUntilStreaming("second")
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
	t.Parallel()
	d, srv, _, db := demoScreen(t, screenConfig{demo: queueable})
	d.queueBehind("first", "second")
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
	t.Parallel()
	m := loadedModel(t, nil, 80, 24)
	m, _ = step(m, press("esc"))
	m, cmd := step(m, press("r"))
	if cmd != nil || m.notice != "" || m.focus != focusInput || m.input.Value() != "r" {
		t.Fatalf("r with no reply to regenerate: focus %v, input %q, notice %q; want it typed", m.focus, m.input.Value(), m.notice)
	}
	m.input.Reset()
	m = typeText(m, "/regen")
	m, cmd = step(m, press("enter"))
	if cmd != nil || !m.noticeErr || !strings.Contains(m.notice, "no reply to regenerate") || m.input.Value() != "/regen" {
		t.Fatalf("/regen with no reply: notice %q, input %q; want the error and the line kept", m.notice, m.input.Value())
	}
}
