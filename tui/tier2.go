package tui

import (
	"fmt"
	"slices"

	tea "charm.land/bubbletea/v2"

	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/sanitize"
)

// This file glues the Tier 2 machine (tier2machine.go) to the screen: it reads a failed run
// back to arm from, ticks the countdown on the model's clock, regenerates when it is due, and
// handles enter and esc on a retry.

// readFailedRun reads run runID back from the database, for Tier 2 to decide from its
// stored classification.
func (m *Model) readFailedRun(runID int64) tea.Cmd {
	db, sessionGen, token := m.db, m.sessionGen, m.tier2.Token()
	return func() tea.Msg {
		r, err := db.Run(runID)
		return storedRunMsg{sessionGen: sessionGen, tier2Token: token, stored: r, err: err}
	}
}

// handleStoredRun arms Tier 2 from a failed run as it was stored. Only the newest reply, with
// nothing else waiting, is retried: a retry regenerates from its anchor, which would
// supersede anything after it.
func (m *Model) handleStoredRun(msg storedRunMsg) tea.Cmd {
	if msg.sessionGen != m.sessionGen || msg.tier2Token != m.tier2.Token() {
		return nil // the operator moved on meanwhile
	}
	if msg.err != nil {
		m.tier2.Disarm()
		m.setNotice("could not read the failed run back: "+msg.err.Error(), true)
		return nil
	}
	free := !m.busy() && len(m.outbox) == 0 && !m.posting
	now := m.clock.Now()
	// The newest message is the run's reply, or (for a retry that produced nothing) the
	// reply that retry left in place.
	if newest := m.transcript.Last(); !free || m.transcript.Anchor(newest) != msg.stored.AnchorID {
		m.tier2.Disarm()
		return nil
	}
	if !m.tier2.Arm(msg.stored.Result(), now) {
		switch c := msg.stored.Retry; {
		case c != nil && c.RetryAfterUntil.After(now):
			// Too far away to wait for, or not retryable at all: say when, retry nothing.
			m.setNotice(fmt.Sprintf("%s — the provider says not before %s · not retried automatically",
				sanitize.String(c.Label), chat.FormatClock(c.RetryAfterUntil, now)), true)
		case c != nil && c.Class == chat.Network:
			// Nothing listening, a name unknown, a certificate refused: the fix is the
			// operator's, and then one key sends it again.
			m.offerAgain(msg.stored.AnchorID, sanitize.String(c.Label))
		}
		return nil
	}
	return m.handleTier2Tick(tier2TickMsg{token: m.tier2.Token()})
}

// handleTier2Tick moves the countdown on, and regenerates when it is due.
func (m *Model) handleTier2Tick(msg tier2TickMsg) tea.Cmd {
	now := m.clock.Now()
	fire, next := m.tier2.Tick(msg.token, now)
	if fire {
		return m.regenerate(m.tier2.Anchor(), true, m.client.SingleRequest())
	}
	if next == 0 {
		return nil // stale: cancelled, disarmed or armed again since
	}
	m.now = now
	clock, token := m.clock, msg.token
	return func() tea.Msg {
		<-clock.After(next)
		return tier2TickMsg{token: token}
	}
}

// retryNow sends the armed Tier 2 retry at once (enter): the operator's choice, so it goes
// even while the provider's remembered wait would hold it back.
func (m *Model) retryNow() tea.Cmd {
	if !m.tier2.RetryNow() {
		return nil
	}
	return m.regenerate(m.tier2.Anchor(), true, m.client.WithForce().SingleRequest())
}

// cancelTier2 is esc on a Tier 2 retry: an armed countdown stops, a retry being sent is
// cancelled, running or queued. Nothing more is sent for it.
func (m *Model) cancelTier2() tea.Cmd {
	runID := m.tier2.Cancel()
	m.setNotice("retry cancelled — "+m.keys.Transcript.Regenerate.Help().Key+" to regenerate", false)
	if runID == 0 {
		return nil
	}
	if m.active != nil && m.active.rcpt.RunID == runID {
		m.cancelRun()
		return nil
	}
	for i, q := range m.queue {
		if q.RunID == runID {
			m.queue = slices.Delete(slices.Clone(m.queue), i, i+1)
			m.transcript.SetStatus(q.ReplyID, chat.StatusCancelled, nil)
			return cancelQueuedCmd(m.db, []stored.Receipt{q})
		}
	}
	return nil
}

// tier2Banner is the armed retry's line: what it waits for, then the keys that act on it.
func (m *Model) tier2Banner() string {
	banner := sanitize.String(m.tier2.Waiting(m.now)) + " · " + m.keys.Chat.Cancel.Help().Key + " cancel"
	switch now := m.keys.Chat.RetryNow.Help().Key; {
	case m.tier2.Unsent():
		banner += " · " + now + " send now"
	case !m.tier2.Scheduled():
		banner += " · " + now + " retry now"
	}
	if m.keys.Chat.Continue.Enabled() {
		banner += " · " + m.keys.Chat.Continue.Help().Key + " continue"
	}
	return banner
}
