package tui

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// Editing one's own message and sending it again, with e, against a demo endpoint and a real
// database.

func TestEditResendsInPlaceOfTheOldTurn(t *testing.T) {
	t.Parallel()
	d, srv, _, db := demoScreen(t, screenConfig{})
	d.typeAndSend("first question")
	d.until("the first reply", answered(t, 2))
	d.typeAndSend("secnd question")
	d.until("the second reply", answered(t, 4))
	before, err := db.AllMessages(d.m.session.ID)
	if err != nil {
		t.Fatal(err)
	}
	q2, a2 := before[2].ID, before[3].ID

	d.selectReplies()
	d.send(press("k")) // from the newest reply to the question it answers
	if d.m.transcript.Selected() != q2 || !d.m.keys.Transcript.Edit.Enabled() {
		t.Fatalf("selected %d (edit enabled: %v), want the operator message %d", d.m.transcript.Selected(), d.m.keys.Transcript.Edit.Enabled(), q2)
	}
	d.send(press("e"))
	if d.m.focus != focusInput || d.m.input.Value() != "secnd question" || !strings.Contains(plain(d.m), "editing your message") {
		t.Fatalf("after e: focus %v, input %q\n%s", d.m.focus, d.m.input.Value(), plain(d.m))
	}
	d.send(press("ctrl+u"))
	d.typeAndSend("second question")
	d.until("the edited question's reply", func(m Model) bool { return srv.Requests() == 3 && answered(t, 4)(m) })

	sent := srv.Received()[2].Messages
	if len(sent) != 3 || sent[2].Content != "second question" || sent[0].Content != "first question" {
		t.Fatalf("the edit sent %+v", sent)
	}
	all, err := db.AllMessages(d.m.session.ID)
	if err != nil {
		t.Fatal(err)
	}
	var superseded []int64
	for _, m := range all {
		if m.Superseded {
			superseded = append(superseded, m.ID)
		}
	}
	edited := all[len(all)-2]
	if !slices.Equal(superseded, []int64{q2, a2}) || edited.Content != "second question" || edited.EditOf != q2 {
		t.Fatalf("superseded %v; the new message %+v", superseded, edited)
	}
	if all[2].Content != "secnd question" {
		t.Fatalf("the old operator message changed: %q", all[2].Content)
	}
	if s := plain(d.m); strings.Contains(s, "secnd") || strings.Contains(s, "editing your message") {
		t.Fatalf("the old turn or the edit marker is still shown:\n%s", s)
	}

	// The old turn is a version of the new one, with the question it answered.
	d.selectReplies()
	d.send(press("["))
	d.until("the version view", func(m Model) bool { return versionsOpen(m) })
	if s := plain(d.m); !strings.Contains(s, "Version 1/2 · superseded") || !strings.Contains(s, "secnd question") {
		t.Fatalf("the earlier version:\n%s", s)
	}
}

func TestEscAbandonsAnEdit(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, storedExchanges(2), 80, 24)
	m = typeText(m, "a draft")
	m = pressKeys(m, "esc", "k", "e")
	if m.input.Value() != "question 2" || m.next.edit != 3 {
		t.Fatalf("after e: input %q, editing %d", m.input.Value(), m.next.edit)
	}
	c := m.chrome()
	if help := c.helpLines(); !strings.Contains(ansi.Strip(strings.Join(help, "\n")), "esc abandon edit") {
		t.Fatalf("the help does not say what esc does now: %s", help)
	}
	m, cmd := step(m, press("esc"))
	if cmd != nil || m.next.edit != 0 || m.input.Value() != "a draft" || m.focus != focusInput {
		t.Fatalf("after esc: input %q, editing %d, focus %v", m.input.Value(), m.next.edit, m.focus)
	}
	// e on a reply edits nothing.
	m, _ = step(m, press("esc"))
	if m.keys.Transcript.Edit.Enabled() {
		t.Fatal("e is offered on a reply")
	}
	m, _ = step(m, press("e"))
	if m.next.edit != 0 || m.focus != focusInput || m.input.Value() != "a drafte" {
		t.Fatalf("e on a reply is text, not an edit: editing %d, focus %v, input %q", m.next.edit, m.focus, m.input.Value())
	}
}
