package tui

import (
	"fmt"
	"strings"
	"testing"

	"parley/history/stored"
	"parley/internal/chat"
)

// / while replies are selected finds a text in the session's messages; n and N find it again.
func TestFindInTheTranscript(t *testing.T) {
	t.Parallel()
	var msgs []stored.Message
	for i := range 30 {
		text := fmt.Sprintf("reply %d about nothing in particular", i)
		if i == 4 || i == 20 {
			text = fmt.Sprintf("reply %d: a Quokka smiles", i)
		}
		msgs = append(msgs,
			stored.Message{ID: int64(2*i + 1), Role: chat.RoleUser, Content: fmt.Sprintf("question %d", i)},
			stored.Message{ID: int64(2*i + 2), Role: chat.RoleAssistant, AnchorID: int64(2*i + 1), RunID: int64(i + 1),
				Status: chat.StatusSucceeded, Content: text})
	}
	m := loadedModel(t, msgs, 100, 20)
	m.focus.toTranscript(&m.input, m.transcript)
	m, _ = step(m, press("/"))
	m = typeText(m, "quokka")
	if !strings.Contains(plain(m), "find: quokka▏ · enter finds · esc cancels") {
		t.Fatalf("the text typed is not shown:\n%s", plain(m))
	}
	m, _ = step(m, press("enter"))
	found := func(want int64) {
		t.Helper()
		if got := m.transcript.Selected(); got != want || !strings.Contains(plain(m), m.transcript.Text(want)) {
			t.Fatalf("selected %d, want %d, on screen:\n%s", got, want, plain(m))
		}
	}
	found(42) // reply 20, the nearest earlier than the newest
	m, _ = step(m, press("n"))
	found(10) // reply 4
	m, _ = step(m, press("n"))
	if !strings.Contains(m.notice, "no earlier message holds “quokka”") || m.transcript.Selected() != 10 {
		t.Fatalf("past the first: notice %q, selected %d", m.notice, m.transcript.Selected())
	}
	m, _ = step(m, press("N"))
	found(42)
	// esc while typing gives up the search and stays selecting; typed keys are not text.
	m, _ = step(m, press("/"))
	m = typeText(m, "xyz")
	m, _ = step(m, press("esc"))
	if m.focus != focusTranscript || m.finding.typing || !m.input.Empty() {
		t.Fatalf("esc: focus %v, typing %v, input %q", m.focus, m.finding.typing, m.input.Value())
	}
}
