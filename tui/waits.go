package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"parley/agent"
	"parley/history"
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

// offerRetry says what can be done about the last reply of a session just opened, when its
// run failed retryable: never sending by itself, it names r, or with a provider's time still
// ahead, offers to schedule the retry then.
func (m *Model) offerRetry(msgs []history.Message) {
	m.offerRun = 0
	if len(msgs) == 0 {
		return
	}
	last := msgs[len(msgs)-1]
	c := last.Retry
	if last.Status != chat.StatusFailed || c == nil || !c.Retryable {
		return
	}
	now := m.clock.Now()
	label := sanitize.String(c.Label)
	if c.RetryAfterUntil.After(now) {
		m.offerRun = last.RunID
		m.setNotice(fmt.Sprintf("%s until %s — %s to schedule, %s to dismiss", label, chat.FormatClock(c.RetryAfterUntil, now),
			m.keys.Input.Send.Help().Key, m.keys.Chat.Cancel.Help().Key), false)
		return
	}
	when := ""
	if !last.CreatedAt.IsZero() {
		when = " at " + chat.FormatClock(last.CreatedAt, now)
	}
	m.setNotice(fmt.Sprintf("%s%s — %s to regenerate (%s selects the reply)", label, when,
		m.keys.Transcript.Regenerate.Help().Key, m.keys.Chat.Cancel.Help().Key), false)
}

// takeOffer is enter on the offer: Tier 2 arms from the stored run, as after any failure.
func (m *Model) takeOffer() tea.Cmd {
	runID := m.offerRun
	m.dismissOffer()
	return m.readFailedRun(runID)
}

// dismissOffer is esc on the offer.
func (m *Model) dismissOffer() {
	m.offerRun = 0
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
