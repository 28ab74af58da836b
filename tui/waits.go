package tui

import (
	"fmt"

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
func (m *Model) clientFor(runID int64) *agent.Client {
	if c, ok := m.runClients[runID]; ok {
		delete(m.runClients, runID)
		return c
	}
	return m.client
}

// fallbackOffered reports whether the armed retry may go to the fallback instead: only for
// a failure retry.FallbackOffered allows, and only before anything was shown (Tier 2 arms
// only then).
func (m *Model) fallbackOffered() bool {
	return m.fallback != nil && m.tier2.Armed() && retry.FallbackOffered(m.tier2.Class())
}

// noFallback says why the fallback key (k) did nothing: no fallback is configured, or no retry
// waits to be sent to it.
func (m *Model) noFallback(k string) {
	if m.fallback == nil {
		m.setNotice(k+": no fallback endpoint — set fallback = \"PROFILE\" in this profile of config.toml", true)
		return
	}
	m.setNotice(k+" sends a retry that waits to "+m.fallback.Endpoint().Model+"; none waits now", false)
}

// fallbackNow regenerates the armed retry's reply on the fallback endpoint (f), once.
func (m *Model) fallbackNow() tea.Cmd {
	if !m.fallbackOffered() {
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
func (m *Model) offered() bool { return m.offer != offer{} }

// takeOffer is enter on the offer: the question is sent again (regenerated), or Tier 2 arms
// from the stored run, as after any failure.
func (m *Model) takeOffer() tea.Cmd {
	o := m.offer
	m.dismissOffer()
	if o.anchor != 0 {
		return m.regenerate(o.anchor, false, nil)
	}
	return m.readFailedRun(o.run)
}

// dismissOffer is esc on the offer.
func (m *Model) dismissOffer() {
	m.offer = offer{}
	m.notice = ""
}

// sayEndpoint opens the screen saying what it will talk to when the operator may not know: a
// key that is not set (no message can be sent), or how the endpoint was chosen (chosen).
func (m *Model) sayEndpoint(chosen string) {
	if m.client != nil && m.client.Endpoint().KeyErr != "" {
		m.setNotice(m.client.Endpoint().KeyErr, true)
		return
	}
	if chosen != "" {
		m.setNotice(chosen, false)
	}
}
