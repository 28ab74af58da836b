package tui

import (
	"strings"
	"testing"
	"time"

	"parley/internal/chat"
	"parley/tui/picker"
)

// Keys that would throw work away ask first, as /new does: opening another session, /quit and
// ctrl+d while a reply is being written, ctrl+c just after a reply ended, e on an earlier
// message. Any other key forgets the question, and its notice.

func TestOpeningAnotherSessionWhileAReplyStreamsAsksFirst(t *testing.T) {
	t.Parallel()
	d, _, _, db := demoScreen(t, screenConfig{demo: cancellable})
	other := storedSession(t, db, "an older question", "its answer")
	d.sendUntilStreaming("a long one")
	first := d.m.session.ID
	d.typeAndSend("/sessions")
	d.until("the picker", func(m Model) bool { return m.overlays.Find(picker.ID) != nil })
	d.pressUntil("down", "the other session", pickerAt(other.ID))
	d.send(press("enter"))
	if d.m.session.ID != first || d.m.active == nil || d.m.active.cancelling || d.m.overlays.Find(picker.ID) == nil ||
		!strings.Contains(plain(d.m), "a reply is being written: enter again stops it and opens “an older question”") {
		t.Fatalf("enter on another session while streaming did not ask:\n%s", plain(d.m))
	}
	d.send(press("enter"))
	d.until("the other session", func(m Model) bool { return m.session.ID == other.ID })
}

func TestQuitWhileAReplyStreamsAsksFirst(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name        string
		keys, again func(d *driver)
		notice      string
	}{
		{"ctrl+d", func(d *driver) { d.send(press("ctrl+d")) }, func(d *driver) { d.send(press("ctrl+d")) },
			"a reply is being written: ctrl+d again stops it and quits"},
		{"/quit", func(d *driver) { d.typeAndSend("/quit") }, func(d *driver) { d.send(press("enter")) },
			"a reply is being written: enter again stops it and quits"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, _, _ := streamingScreen(t, "a long one")
			c.keys(d)
			if d.m.active == nil || d.m.active.cancelling || d.m.quitAfterRun || !strings.Contains(plain(d.m), c.notice) {
				t.Fatalf("%s while streaming did not ask:\n%s", c.name, plain(d.m))
			}
			if c.name == "/quit" && d.m.input.Value() != "/quit" {
				t.Fatalf("the line left the input: %q", d.m.input.Value())
			}
			// Another key forgets the question, and its notice goes with it.
			d.send(press("pgup"))
			if strings.Contains(plain(d.m), c.notice) {
				t.Fatalf("the question stays after another key:\n%s", plain(d.m))
			}
			c.again(d)
			if !strings.Contains(plain(d.m), c.notice) {
				t.Fatalf("%s after another key did not ask again:\n%s", c.name, plain(d.m))
			}
			c.again(d)
			if d.m.active != nil && (!d.m.active.cancelling || !d.m.quitAfterRun) {
				t.Fatalf("%s twice did not stop the reply to quit", c.name)
			}
		})
	}
}

func TestCtrlCJustAfterAReplyEndedAsksBeforeQuitting(t *testing.T) {
	t.Parallel()
	m, clock, _ := answeredOffline(t)
	clock.Advance(200 * time.Millisecond)
	m, cmd := step(m, press("ctrl+c"))
	if quits(cmd) || !strings.Contains(plain(m), "nothing to stop: the reply has ended · ctrl+c again quits") {
		t.Fatalf("ctrl+c 200 ms after the reply ended quit, or did not say why not:\n%s", plain(m))
	}
	if _, cmd = step(m, press("ctrl+c")); !quits(cmd) {
		t.Fatal("a second ctrl+c did not quit")
	}
	// Past the guard ctrl+c quits at once, as before.
	clock.Advance(selectGuard)
	m, _ = step(m, press("pgup"))
	if _, cmd = step(m, press("ctrl+c")); !quits(cmd) {
		t.Fatal("ctrl+c long after the reply did not quit")
	}
}

func TestEditAnEarlierMessageAsksOnce(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, storedExchanges(3), 80, 24)
	m, _ = step(m, press("esc"))
	for range 3 {
		m, _ = step(m, press("k")) // the newest question, the reply before it, its question
	}
	if !m.transcript.IsOperator(m.transcript.Selected()) {
		t.Fatal("the second question is not selected")
	}
	m, _ = step(m, press("e"))
	if m.next.edit != 0 || !strings.Contains(plain(m), "e again to edit from here — 2 later messages will be superseded") {
		t.Fatalf("e on an earlier message did not ask:\n%s", plain(m))
	}
	m, _ = step(m, press("j"))
	if strings.Contains(plain(m), "again to edit") {
		t.Fatalf("the question stays after another key:\n%s", plain(m))
	}
	m = pressKeys(m, "k", "e", "e")
	if m.next.edit == 0 || m.input.Value() != "question 2" {
		t.Fatalf("e twice: editing %d, input %q", m.next.edit, m.input.Value())
	}
	// The newest question has only its reply after it: e acts at once.
	m = loadedModel(t, storedExchanges(3), 80, 24)
	m = pressKeys(m, "esc", "k")
	if m, _ = step(m, press("e")); m.next.edit == 0 {
		t.Fatal("e on the newest question asked")
	}
}

func TestACancelledRegenerateQuestionLeavesNoNotice(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, storedExchanges(3), 80, 24)
	m = pressKeys(m, "esc", "k", "k", "r", "j")
	if strings.Contains(plain(m), "again to regenerate") || m.notice != "" {
		t.Fatalf("a forgotten question leaves its notice %q:\n%s", m.notice, plain(m))
	}
}

// ctrl+c with messages a stop held, or a failed reply offered to be sent again, asks before it
// quits: quitting at once dropped them. A second ctrl+c quits.
func TestCtrlCAsksBeforeQuittingWithWorkWaiting(t *testing.T) {
	t.Parallel()
	t.Run("queued messages held", func(t *testing.T) {
		t.Parallel()
		d, _, clock, _ := demoScreen(t, screenConfig{demo: queueable, manual: true})
		d.queueBehind("first", "second", "third")
		d.send(press("ctrl+c")) // stops the reply; the queue is held
		d.until("the stopped run to end", func(m Model) bool { return m.active == nil })
		clock.Advance(selectGuard)
		m, cmd := step(d.m, press("ctrl+c"))
		if quits(cmd) || m.overlays.asked() != "2 queued messages wait to be sent: ctrl+c again quits without sending them" {
			t.Fatalf("ctrl+c with 2 held messages: asked %q; screen:\n%s", m.overlays.asked(), plain(m))
		}
		if !strings.Contains(plain(m), "ctrl+c again quits without sending them") {
			t.Errorf("the question is not on the screen:\n%s", plain(m))
		}
		d.m = m
		m, cmd = step(d.m, press("ctrl+c"))
		if !quits(cmd) {
			t.Fatal("a second ctrl+c did not quit")
		}
		d.m = m
	})
	t.Run("a failed reply offered again", func(t *testing.T) {
		t.Parallel()
		msgs := storedExchanges(2)
		msgs[3].Status = chat.StatusInterrupted
		m := loadedModel(t, msgs, 100, 24)
		m, cmd := step(m, press("ctrl+c"))
		if quits(cmd) || m.overlays.asked() != "the last reply can be sent again (enter): ctrl+c again quits without it" {
			t.Fatalf("ctrl+c with an offer: asked %q; screen:\n%s", m.overlays.asked(), plain(m))
		}
		if _, cmd = step(m, press("ctrl+c")); !quits(cmd) {
			t.Fatal("a second ctrl+c did not quit")
		}
	})
}
