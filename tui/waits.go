package tui

import (
	"fmt"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/agent"
	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/sanitize"
	"parley/retry"
)

// This file holds what a provider's wait means on this screen beyond Tier 2's countdown: a
// run sent to another client than the screen's (the fallback, or a retry sent now despite a
// remembered wait), the fallback the operator may choose while a retry is armed, and the
// offer made when a session opens on a reply that failed retryable.

// clientFor returns the client that run runID is sent with, and forgets the choice.
func (r *runs) clientFor(runID int64, screen *agent.Client) *agent.Client {
	if c, ok := r.runClients[runID]; ok {
		delete(r.runClients, runID)
		return c
	}
	return screen
}

// fallbackOffered reports whether the armed retry may go to the fallback instead: only for
// a failure retry.FallbackOffered allows, and only before anything was shown (Tier 2 arms
// only then).
func (e *endpoints) fallbackOffered(t *retry.Tier2) bool {
	return e.fallback != nil && t.Armed() && retry.FallbackOffered(t.Class())
}

// noFallback says why the fallback key (k) did nothing: no fallback is configured, or no retry
// waits to be sent to it.
func (e *endpoints) noFallback(n *noticeLine, k string) {
	if e.fallback == nil {
		n.setNotice(k+": no fallback endpoint — set fallback = \"PROFILE\" in this profile of config.toml", true)
		return
	}
	n.setNotice(k+" sends a retry that waits to "+e.fallback.Endpoint().Model+"; none waits now", false)
}

// fallbackNow regenerates the armed retry's reply on the fallback endpoint (f), once.
func (m *Model) fallbackNow() tea.Cmd {
	if !m.fallbackOffered(&m.tier2) {
		return nil
	}
	anchor := m.tier2.Anchor()
	m.tier2.Disarm()
	m.setNotice("sent to the fallback, "+m.fallback.Endpoint().Model, false)
	return m.regenerate(anchor, false, m.fallback)
}

// offer is what enter on an empty input does about the failed reply the screen ends on, one
// key, and esc dismisses: schedule its retry at the provider's time (run), or send its question
// again now (anchor). Nothing is sent without it.
type offer struct{ run, anchor int64 }

// offerRetry says what can be done about the last reply of a session just opened, when its
// run failed retryable or was interrupted: never sending by itself, it offers to send it again,
// or with a provider's time still ahead, to schedule the retry then.
func (m *Model) offerRetry(msgs []stored.Message) {
	m.offer = offer{}
	if len(msgs) == 0 {
		return
	}
	last := msgs[len(msgs)-1]
	if last.Status == chat.StatusInterrupted {
		m.offerAgain(last.AnchorID, "interrupted")
		return
	}
	c := last.Retry
	if last.Status != chat.StatusFailed || c == nil || !c.Retryable {
		return
	}
	now := m.clock.Now()
	label := sanitize.String(c.Label)
	if c.RetryAfterUntil.After(now) {
		m.offer = offer{run: last.RunID}
		m.setNotice(fmt.Sprintf("%s until %s — %s to schedule, %s to dismiss", label, chat.FormatClock(c.RetryAfterUntil, now),
			m.keys.Input.Send.Help().Key, m.keys.Chat.Cancel.Help().Key), false)
		return
	}
	if !last.CreatedAt.IsZero() {
		label += " at " + chat.FormatClock(last.CreatedAt, now)
	}
	m.offerAgain(last.AnchorID, label)
}

// offerAgain offers to send the question anchor again, after what says what happened.
func (m *Model) offerAgain(anchor int64, what string) {
	m.offer = offer{anchor: anchor}
	m.setNotice(fmt.Sprintf("%s — %s sends it again, %s dismisses", what, m.keys.Input.Send.Help().Key, m.keys.Chat.Cancel.Help().Key), false)
}

// offered reports whether an offer stands.
func (o offer) offered() bool { return o != offer{} }

// takeOffer is enter on the offer: the question is sent again (regenerated), or Tier 2 arms
// from the stored run, as after any failure.
func (m *Model) takeOffer() tea.Cmd {
	o := m.offer
	m.dismissOffer()
	if o.anchor != 0 {
		return m.regenerate(o.anchor, false, nil)
	}
	return m.readFailedRun(o.run, m.tier2.Token())
}

// dismissOffer is esc on the offer.
func (m *Model) dismissOffer() {
	m.offer = offer{}
	m.notice = ""
}

// sayEndpoint opens the screen saying what it will talk to when the operator may not know: a
// key that is not set (no message can be sent), or how the endpoint was chosen (chosen).
func (e *endpoints) sayEndpoint(n *noticeLine, chosen string) {
	if e.client != nil && e.client.Endpoint().KeyErr != "" {
		n.setNotice(e.client.Endpoint().KeyErr, true)
		return
	}
	if chosen != "" {
		n.setNotice(chosen, false)
	}
}

// This part glues the Tier 2 machine (tier2machine.go) to the screen: it reads a failed run
// back to arm from, ticks the countdown on the model's clock, regenerates when it is due, and
// handles enter and esc on a retry.

// readFailedRun reads run runID back from the database, for Tier 2 to decide from its
// stored classification.
func (s *sessionState) readFailedRun(runID int64, token int) tea.Cmd {
	db, sessionGen := s.db, s.sessionGen
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

// tier2Banner is the armed retry t's line at now: what it waits for, then the keys of c that
// act on it.
func tier2Banner(t *retry.Tier2, now time.Time, c ChatKeys) string {
	banner := sanitize.String(t.Waiting(now)) + " · " + c.Cancel.Help().Key + " cancel"
	switch k := c.RetryNow.Help().Key; {
	case t.Unsent():
		banner += " · " + k + " send now"
	case !t.Scheduled():
		banner += " · " + k + " retry now"
	}
	if c.Continue.Enabled() {
		banner += " · " + c.Continue.Help().Key + " continue"
	}
	return banner
}
