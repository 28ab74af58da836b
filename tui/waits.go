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
	"parley/tui/transcript"
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

// waits is the screen's side of a failed reply: the Tier 2 machine and its countdown, and the
// offer made when a session opens on a reply that failed. Its methods decide and say; what is
// to be sent again, they return to the screen, which regenerates it.
type waits struct {
	// tier2 is the Tier 2 retry: armed after a run fails with a retryable classification.
	tier2 retry.Tier2
	// offer is what enter does about the failed reply the screen ends on, and esc dismisses;
	// zero when nothing is offered.
	offer
}

// fallbackNow takes the armed retry away from Tier 2 to send it on the fallback endpoint (f),
// once: it returns the anchor to regenerate, or 0 when no fallback is offered.
func (w *waits) fallbackNow(e *endpoints, n *noticeLine) int64 {
	if !e.fallbackOffered(&w.tier2) {
		return 0
	}
	anchor := w.tier2.Anchor()
	w.tier2.Disarm()
	n.setNotice("sent to the fallback, "+e.fallback.Endpoint().Model, false)
	return anchor
}

// offer is what enter on an empty input does about the failed reply the screen ends on, one
// key, and esc dismisses: schedule its retry at the provider's time (run), or send its question
// again now (anchor). Nothing is sent without it.
type offer struct{ run, anchor int64 }

// offerRetry says what can be done about the last reply of a session just opened, when its
// run failed retryable or was interrupted: never sending by itself, it offers to send it again,
// or with a provider's time still ahead, to schedule the retry then.
func (w *waits) offerRetry(msgs []stored.Message, now time.Time, k *KeyMap, n *noticeLine) {
	w.offer = offer{}
	if len(msgs) == 0 {
		return
	}
	last := msgs[len(msgs)-1]
	if last.Status == chat.StatusInterrupted {
		w.offerAgain(last.AnchorID, "interrupted", k, n)
		return
	}
	c := last.Retry
	if last.Status != chat.StatusFailed || c == nil || !c.Retryable {
		return
	}
	label := sanitize.String(c.Label)
	if c.RetryAfterUntil.After(now) {
		w.offer = offer{run: last.RunID}
		n.setNotice(fmt.Sprintf("%s until %s — %s to schedule, %s to dismiss", label, chat.FormatClock(c.RetryAfterUntil, now),
			k.Input.Send.Help().Key, k.Chat.Cancel.Help().Key), false)
		return
	}
	if !last.CreatedAt.IsZero() {
		label += " at " + chat.FormatClock(last.CreatedAt, now)
	}
	w.offerAgain(last.AnchorID, label, k, n)
}

// offerAgain offers to send the question anchor again, after what says what happened.
func (w *waits) offerAgain(anchor int64, what string, k *KeyMap, n *noticeLine) {
	w.offer = offer{anchor: anchor}
	n.setNotice(fmt.Sprintf("%s — %s sends it again, %s dismisses", what, k.Input.Send.Help().Key, k.Chat.Cancel.Help().Key), false)
}

// offered reports whether an offer stands.
func (o offer) offered() bool { return o != offer{} }

// takeOffer is enter on the offer: it returns the offer taken, whose question the screen sends
// again (regenerated), or whose stored run it arms Tier 2 from, as after any failure.
func (w *waits) takeOffer(n *noticeLine) offer {
	o := w.offer
	w.dismissOffer(n)
	return o
}

// dismissOffer is esc on the offer.
func (w *waits) dismissOffer(n *noticeLine) {
	w.offer = offer{}
	n.notice = ""
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

// armFrom arms Tier 2 from a failed run as it was stored, and reports whether it did (the
// countdown then starts with a tick). Only the newest reply (newestAnchor is its anchor), with
// nothing else waiting (free), is retried: a retry regenerates from its anchor, which would
// supersede anything after it.
func (w *waits) armFrom(msg storedRunMsg, free bool, newestAnchor int64, now time.Time, k *KeyMap, n *noticeLine) bool {
	if msg.tier2Token != w.tier2.Token() {
		return false // the operator moved on meanwhile
	}
	if msg.err != nil {
		w.tier2.Disarm()
		n.setNotice("could not read the failed run back: "+msg.err.Error(), true)
		return false
	}
	if !free || newestAnchor != msg.stored.AnchorID {
		w.tier2.Disarm()
		return false
	}
	if !w.tier2.Arm(msg.stored.Result(), now) {
		switch c := msg.stored.Retry; {
		case c != nil && c.RetryAfterUntil.After(now):
			// Too far away to wait for, or not retryable at all: say when, retry nothing.
			n.setNotice(fmt.Sprintf("%s — the provider says not before %s · not retried automatically",
				sanitize.String(c.Label), chat.FormatClock(c.RetryAfterUntil, now)), true)
		case c != nil && c.Class == chat.Network:
			// Nothing listening, a name unknown, a certificate refused: the fix is the
			// operator's, and then one key sends it again.
			w.offerAgain(msg.stored.AnchorID, sanitize.String(c.Label), k, n)
		}
		return false
	}
	return true
}

// tick moves the countdown on at the clock's time, kept in now: it returns the anchor to
// regenerate when the retry is due, else the next tick's command (nil when the tick is stale:
// cancelled, disarmed or armed again since).
func (w *waits) tick(token int, clock chat.Clock, now *time.Time) (due int64, next tea.Cmd) {
	at := clock.Now()
	fire, wait := w.tier2.Tick(token, at)
	if fire {
		return w.tier2.Anchor(), nil
	}
	if wait == 0 {
		return 0, nil
	}
	*now = at
	return 0, func() tea.Msg {
		<-clock.After(wait)
		return tier2TickMsg{token: token}
	}
}

// tier2Tick moves the countdown on, and regenerates when it is due.
func (m *Model) tier2Tick(token int) tea.Cmd {
	due, next := m.waits.tick(token, m.clock, &m.now)
	if due != 0 {
		return m.regenerate(due, true, m.client.SingleRequest())
	}
	return next
}

// retryNow is enter on the armed retry: it returns the anchor to regenerate at once, or 0
// when nothing is armed. The operator's choice, so it goes even while the provider's
// remembered wait would hold it back (the screen sends it forced).
func (w *waits) retryNow() int64 {
	if !w.tier2.RetryNow() {
		return 0
	}
	return w.tier2.Anchor()
}

// cancel is esc on a Tier 2 retry: an armed countdown stops; it returns the run of a retry
// being sent, for the screen to cancel (0: none). Nothing more is sent for it.
func (w *waits) cancel(k *KeyMap, n *noticeLine) int64 {
	runID := w.tier2.Cancel()
	n.setNotice("retry cancelled — "+k.Transcript.Regenerate.Help().Key+" to regenerate", false)
	return runID
}

// cancelRetry cancels run runID, the retry Tier 2 sent, running or queued (its reply shown
// cancelled in t, its run stored so through db).
func (r *runs) cancelRetry(runID int64, t *transcript.List, db Store) tea.Cmd {
	if runID == 0 {
		return nil
	}
	if r.active != nil && r.active.rcpt.RunID == runID {
		r.cancelRun()
		return nil
	}
	for i, q := range r.queue {
		if q.RunID == runID {
			r.queue = slices.Delete(slices.Clone(r.queue), i, i+1)
			t.SetStatus(q.ReplyID, chat.StatusCancelled, nil)
			return cancelQueuedCmd(db, []stored.Receipt{q})
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
