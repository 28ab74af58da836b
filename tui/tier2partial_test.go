package tui

import (
	"strings"
	"testing"
	"time"

	"parley/internal/chat"
	"parley/internal/demo"
)

// A Tier 2 retry that produces nothing: the partial reply before it stays, on screen, in the
// database and among the versions.

func TestTier2RetryThatProducesNothingLeavesThePartialReply(t *testing.T) {
	t.Parallel()
	d, srv, clock, db := demoScreen(t, tier2Config(demo.Fault{CutAfter: 12}, demo.Overloaded()))
	d.sendUntilArmed("hello")
	partial := lastReply(t, d.m)
	text := partial.text
	if len(text) < 20 || !strings.Contains(plain(d.m), "✗ cut off here · Network error") {
		t.Fatalf("the cut reply is not shown as cut off:\n%s", plain(d.m))
	}
	d.advance(clock, time.Second)
	d.advance(clock, time.Second)
	d.until("the second retry to arm", func(m Model) bool { return armed(m) && m.tier2.Attempt() == 2 })
	if srv.Requests() != 2 || lastReply(t, d.m).message.ID != partial.message.ID || !strings.Contains(plain(d.m), text[:20]) ||
		!strings.Contains(plain(d.m), "retry 1 failed: Provider overloaded") {
		t.Fatalf("%d requests; the partial reply should stay through the countdown:\n%s", srv.Requests(), plain(d.m))
	}
	if live := liveMessages(t, db, d.m.session.ID); len(live) != 2 || live[1].ID != partial.message.ID {
		t.Fatalf("live %+v: the empty attempt replaced the partial reply", live)
	}
	for range 4 {
		d.advance(clock, time.Second)
	}
	d.until("the reply", func(m Model) bool { return settled(m) && lastReply(t, m).message.Status == chat.StatusSucceeded })
	if d.m.transcript.Len() != 2 || strings.Contains(plain(d.m), "cut off") {
		t.Fatalf("the new reply should replace the partial one:\n%s", plain(d.m))
	}
	// The versions are the partial reply and the new one: the attempt that produced nothing
	// is none.
	clock.Advance(selectGuard)
	d.selectReplies()
	d.send(press("["))
	d.until("the versions", func(m Model) bool { return versionsOpen(m) })
	if s := plain(d.m); !strings.Contains(s, "Version 1/2 · superseded") || !strings.Contains(s, text[:20]) {
		t.Fatalf("versions:\n%s", s)
	}
}
