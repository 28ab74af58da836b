package tui

import (
	"fmt"
	"math"
	"time"

	"parley/agent"
	"parley/history"
	"parley/internal/chat"
	"parley/internal/sanitize"
	"parley/retry"
)

// Tier 2 is the slow, visible retry: after a run fails with a retryable classification, as
// stored in the database, the screen counts down and then regenerates the reply from its
// anchor, until a run succeeds or the operator cancels. The machine below holds only state
// and decisions; every method that needs the time is given it, so it never reads a clock or
// sleeps, and its tests step it through time exactly. tier2.go ties it to the screen.

// tier2State is where the machine is:
//
//	idle → armed → dispatching → idle | armed
//	armed | dispatching → cancelled
type tier2State int

const (
	tier2Idle        tier2State = iota // nothing to retry
	tier2Armed                         // counting down to the next retry
	tier2Dispatching                   // the retry is being stored and sent
	tier2Cancelled                     // the operator cancelled; nothing more is sent
)

// tier2 is the Tier 2 machine.
type tier2 struct {
	state tier2State
	// token is the generation token. Every arming, cancel and disarm takes a new one; a tick
	// or result that carries another is stale and changes nothing. Callers read it only to
	// stamp what they send (Token); the machine alone compares it.
	token int
	// anchor is the operator message the retry regenerates from.
	anchor int64
	// runID is the stored run the retry sent, once its receipt is back; 0 before.
	runID int64
	// attempt numbers the automatic retries of one failure from 1: the one counted down to
	// while armed, the one sent while dispatching.
	attempt int
	// class is the stored classification that armed the retry; it names the banner.
	class chat.Classification
	// due is when the armed retry is sent: never before the provider's advice.
	due time.Time
	// scheduled is set when due is provider advice further away than retry.Tier2Cap: the banner
	// shows the time of day instead of counting seconds.
	scheduled bool
	// unsent is set when the failed run sent nothing: endpoint memory held it back until the
	// provider's time, so the banner says "sending", not "retrying".
	unsent bool
}

// armable reports whether a run, as stored, may arm a retry at now: it failed, its
// classification says a retry can succeed, it was not interrupted or cancelled (those are
// retried only by hand), and the provider's advice, if any, is within retry.Tier2Horizon.
func armable(r history.Run, now time.Time) bool {
	c := r.Retry
	if r.Status != chat.StatusFailed || c == nil || !c.Retryable {
		return false
	}
	if c.Class == chat.Interrupted || c.Class == chat.Cancelled {
		return false
	}
	return c.RetryAfterUntil.IsZero() || c.RetryAfterUntil.Sub(now) <= retry.Tier2Horizon
}

// Arm arms a retry after run r failed, as read back from the database at now, and reports
// whether it did. When r is the run the machine sent, the retry is the next attempt;
// otherwise it is the first. A run that may not arm ends a dispatch of it.
func (t *tier2) Arm(r history.Run, now time.Time) bool {
	ours := t.state == tier2Dispatching && t.runID == r.ID
	if !armable(r, now) {
		if ours {
			t.state = tier2Idle
		}
		return false
	}
	attempt := 1
	if ours {
		attempt = t.attempt + 1
	}
	t.token++
	t.state, t.anchor, t.runID, t.attempt, t.class = tier2Armed, r.AnchorID, 0, attempt, *r.Retry
	t.unsent = r.Attempts == 0
	t.due = now.Add(retry.Tier2Delay(attempt))
	after := r.Retry.RetryAfterUntil
	t.scheduled = after.Sub(now) > retry.Tier2Cap
	if after.After(t.due) {
		t.due = after
	}
	return true
}

// Armed reports whether a retry is counting down.
func (t *tier2) Armed() bool { return t.state == tier2Armed }

// Active reports whether a retry is counting down or being sent: what esc cancels.
func (t *tier2) Active() bool { return t.state == tier2Armed || t.state == tier2Dispatching }

// Token is the current generation token, for the ticks and results to carry.
func (t *tier2) Token() int { return t.token }

// Tick handles a tick carrying token at now. It reports fire when the retry is due, after
// moving to dispatching; otherwise next is the wait until the countdown shows another
// second, or 0 when the tick is stale and no more ticks are wanted.
func (t *tier2) Tick(token int, now time.Time) (fire bool, next time.Duration) {
	if token != t.token || t.state != tier2Armed {
		return false, 0
	}
	left := t.due.Sub(now)
	if left <= 0 {
		t.state = tier2Dispatching
		return true, 0
	}
	if next = left % time.Second; next == 0 {
		next = time.Second
	}
	return false, next
}

// RetryNow sends the armed retry at once, and reports whether there was one.
func (t *tier2) RetryNow() bool {
	if t.state != tier2Armed {
		return false
	}
	t.state = tier2Dispatching
	return true
}

// Sent records the run that the retry sent under token stored, and reports whether it may
// be started. It may not when the retry was cancelled or replaced meanwhile: the caller then
// stores the run as cancelled, unsent.
func (t *tier2) Sent(token int, runID int64) bool {
	if token != t.token || t.state != tier2Dispatching {
		return false
	}
	t.runID = runID
	return true
}

// Ended notes that run runID ended with status st. A sent retry that succeeded ends the
// machine's work; one that was cancelled stays cancelled; one that failed waits for its
// stored classification (Arm) to decide.
func (t *tier2) Ended(runID int64, st chat.Status) {
	if t.state != tier2Dispatching || t.runID != runID {
		return
	}
	switch st {
	case chat.StatusSucceeded:
		t.state = tier2Idle
	case chat.StatusCancelled:
		t.token++
		t.state = tier2Cancelled
	case chat.StatusFailed:
	default:
		t.state = tier2Idle
	}
}

// Cancel is esc: it stops an armed countdown, or gives up the retry being sent, and returns
// the sent run for the caller to cancel (0 when none is running yet). Either way nothing
// more is sent for this retry.
func (t *tier2) Cancel() (runID int64) {
	if !t.Active() {
		return 0
	}
	if t.state == tier2Dispatching {
		runID = t.runID
	}
	t.token++
	t.state, t.runID = tier2Cancelled, 0
	return runID
}

// Disarm forgets any retry, armed or being sent, because the operator moved on: a new
// message, a regeneration by hand, another session. Results of the old generation are
// ignored from now on.
func (t *tier2) Disarm() {
	t.token++
	t.state, t.runID = tier2Idle, 0
}

// Banner is the line that shows an armed retry at now, or "" when none is armed.
func (t *tier2) Banner(now time.Time) string {
	if t.state != tier2Armed {
		return ""
	}
	label := sanitize.String(t.class.Label)
	if label == "" {
		label = chat.Label(t.class.Class)
	}
	switch {
	case t.unsent && t.scheduled:
		return fmt.Sprintf("%s — sending after %s · esc cancel · enter send now", label, agent.FormatClock(t.due, now))
	case t.unsent:
		return fmt.Sprintf("%s — sending in %ds · esc cancel · enter send now", label, max(0, int(math.Ceil(t.due.Sub(now).Seconds()))))
	case t.scheduled:
		return fmt.Sprintf("%s — retrying after %s · esc cancel", label, agent.FormatClock(t.due, now))
	}
	secs := max(0, int(math.Ceil(t.due.Sub(now).Seconds())))
	return fmt.Sprintf("%s — retrying in %ds (attempt %d) · esc cancel · enter retry now", label, secs, t.attempt)
}
