package tui

import (
	"strings"
	"testing"

	"parley/history/stored"
	"parley/internal/chat"
)

// What can be done about a failed reply is one key: enter sends it again, esc dismisses.

func TestEnterSendsAnInterruptedReplyAgain(t *testing.T) {
	t.Parallel()
	msgs := storedExchanges(2)
	msgs[3].Status = chat.StatusInterrupted
	m := loadedModel(t, msgs, 100, 24)
	if !strings.Contains(plain(m), "interrupted — enter sends it again, esc dismisses") {
		t.Fatalf("no offer:\n%s", plain(m))
	}
	m, cmd := step(m, press("enter"))
	if !m.posting || cmd == nil || m.offered() {
		t.Fatalf("enter on the offer: regenerating %v, offer left %v", m.posting, m.offered())
	}
	// esc dismisses it; enter then does nothing.
	m = loadedModel(t, msgs, 100, 24)
	m, _ = step(m, press("esc"))
	if m, _ = step(m, press("enter")); m.posting || m.offered() || m.notice != "" {
		t.Fatalf("after esc: regenerating %v, offer %v, notice %q", m.posting, m.offered(), m.notice)
	}
}

func TestARefusedConnectionIsOfferedAgainOnceFixed(t *testing.T) {
	t.Parallel()
	msgs := storedExchanges(1)
	msgs[1].Status = chat.StatusFailed
	refused := chat.Classification{Class: chat.Network, Label: "Network error",
		Message: "nothing is listening on 127.0.0.1:1 (connection refused): is the server running? Start it, then try again"}
	msgs[1].Retry = &refused
	m := loadedModel(t, msgs, 100, 24)
	m, _ = step(m, storedRunMsg{sessionGen: m.sessionGen, tier2Token: m.tier2.Token(),
		stored: stored.Run{ID: msgs[1].RunID, AnchorID: 1, ReplyID: 2, Status: chat.StatusFailed, Retry: &refused}})
	if m.tier2.Armed() || !strings.Contains(m.notice, "Network error — enter sends it again, esc dismisses") {
		t.Fatalf("armed %v, notice %q", m.tier2.Armed(), m.notice)
	}
	if m, _ = step(m, press("enter")); !m.posting {
		t.Fatal("enter did not send it again")
	}
}
