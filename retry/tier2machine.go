package retry

import (
	"fmt"
	"time"

	"parley/internal/chat"
)

// After a run fails with a retryable classification, as stored in the database, Tier 2 counts
// down and then regenerates the reply from its anchor, until a run succeeds or the operator
// cancels. Tier2 holds only that state and its decisions: every method that needs the time is
// given it, so it never reads a clock or sleeps, and its tests step it through time exactly.
// The chat screen ties it to keys and ticks; print mode's --wait drives it with a timer.

// Tier2State is where a Tier2 is:
//
//	idle → armed → dispatching → idle | armed
//	armed | dispatching → cancelled
type Tier2State int

// The states of Tier 2.
const (
	Tier2Idle        Tier2State = iota // nothing to retry
	Tier2Armed                         // counting down to the next retry
	Tier2Dispatching                   // the retry is being stored and sent
	Tier2Cancelled                     // the operator cancelled; nothing more is sent
)

// Tier2 is the Tier 2 machine. Its zero value is idle.
type Tier2 struct {
	state Tier2State
	// token is the generation token. Every arming, cancel and disarm takes a new one; a tick
	// or result that carries another is stale and changes nothing. Callers read it only to
	// stamp what they send (Token); the machine alone compares it.
	token int
	// anchor is the operator message the retry regenerates from; failed the run that armed
	// it, which a retry resumes from when it called tools.
	anchor, failed int64
	// runID is the stored run the retry sent, once its receipt is back; 0 before.
	runID int64
	// attempt numbers the automatic retries of one failure from 1: the one counted down to
	// while armed, the one sent while dispatching.
	attempt int
	// class is the stored classification that armed the retry; it names the wait.
	class chat.Classification
	// due is when the armed retry is sent: never before the provider's advice.
	due time.Time
	// scheduled is set when due is provider advice further away than Tier2Cap: the wait is
	// shown as a time of day instead of counting seconds.
	scheduled bool
	// unsent is set when the failed run sent nothing: endpoint memory held it back until the
	// provider's time, so the wait says "sending", not "retrying".
	unsent bool
}

// Armable reports whether a run, as stored, may arm a retry at now: it failed, its
// classification says a retry can succeed, it was not interrupted or cancelled (those are
// retried only by hand), and the provider's advice, if any, is within Tier2Horizon.
func Armable(r chat.RunResult, now time.Time) bool {
	c := r.Retry
	if r.Status != chat.StatusFailed || c == nil || !c.Retryable {
		return false
	}
	if c.Class == chat.Interrupted || c.Class == chat.Cancelled {
		return false
	}
	return c.RetryAfterUntil.IsZero() || c.RetryAfterUntil.Sub(now) <= Tier2Horizon
}

// Arm arms a retry after run r failed, as read back from the database at now, and reports
// whether it did. When r is the run the machine sent, the retry is the next attempt;
// otherwise it is the first. A run that may not arm ends a dispatch of it.
func (t *Tier2) Arm(r chat.RunResult, now time.Time) bool {
	ours := t.state == Tier2Dispatching && t.runID == r.RunID
	if !Armable(r, now) {
		if ours {
			t.state = Tier2Idle
		}
		return false
	}
	attempt := 1
	if ours {
		attempt = t.attempt + 1
	}
	t.token++
	t.state, t.anchor, t.failed, t.runID, t.attempt, t.class = Tier2Armed, r.AnchorID, r.RunID, 0, attempt, *r.Retry
	t.unsent = r.Attempts == 0
	t.due = Tier2Due(attempt, *r.Retry, now)
	t.scheduled = r.Retry.RetryAfterUntil.Sub(now) > Tier2Cap
	return true
}

// State is where the machine is.
func (t *Tier2) State() Tier2State { return t.state }

// Armed reports whether a retry is counting down.
func (t *Tier2) Armed() bool { return t.state == Tier2Armed }

// Active reports whether a retry is counting down or being sent: what esc cancels.
func (t *Tier2) Active() bool { return t.state == Tier2Armed || t.state == Tier2Dispatching }

// Token is the current generation token, for the ticks and results to carry.
func (t *Tier2) Token() int { return t.token }

// Anchor is the operator message the retry regenerates from.
func (t *Tier2) Anchor() int64 { return t.anchor }

// Failed is the run that armed the retry.
func (t *Tier2) Failed() int64 { return t.failed }

// Attempt numbers the retry counted down to or being sent, from 1.
func (t *Tier2) Attempt() int { return t.attempt }

// Class is the stored classification that armed the retry.
func (t *Tier2) Class() chat.Classification { return t.class }

// Due is when the armed retry is sent.
func (t *Tier2) Due() time.Time { return t.due }

// Scheduled reports whether the wait is a time of day (provider advice beyond Tier2Cap)
// rather than a countdown.
func (t *Tier2) Scheduled() bool { return t.scheduled }

// Unsent reports whether the failed run sent nothing (endpoint memory held it back): the
// retry is then its first send.
func (t *Tier2) Unsent() bool { return t.unsent }

// Tick handles a tick carrying token at now. It reports fire when the retry is due, after
// moving to dispatching; otherwise next is the wait until the countdown shows another
// second, or 0 when the tick is stale and no more ticks are wanted.
func (t *Tier2) Tick(token int, now time.Time) (fire bool, next time.Duration) {
	if token != t.token || t.state != Tier2Armed {
		return false, 0
	}
	left := t.due.Sub(now)
	if left <= 0 {
		t.state = Tier2Dispatching
		return true, 0
	}
	if next = left % time.Second; next == 0 {
		next = time.Second
	}
	return false, next
}

// RetryNow sends the armed retry at once, and reports whether there was one.
func (t *Tier2) RetryNow() bool {
	if t.state != Tier2Armed {
		return false
	}
	t.state = Tier2Dispatching
	return true
}

// Sent records the run that the retry sent under token stored, and reports whether it may
// be started. It may not when the retry was cancelled or replaced meanwhile: the caller then
// stores the run as cancelled, unsent.
func (t *Tier2) Sent(token int, runID int64) bool {
	if token != t.token || t.state != Tier2Dispatching {
		return false
	}
	t.runID = runID
	return true
}

// Ended notes that run runID ended with status st. A sent retry that succeeded ends the
// machine's work; one that was cancelled stays cancelled; one that failed waits for its
// stored classification (Arm) to decide.
func (t *Tier2) Ended(runID int64, st chat.Status) {
	if t.state != Tier2Dispatching || t.runID != runID {
		return
	}
	switch st {
	case chat.StatusSucceeded:
		t.state = Tier2Idle
	case chat.StatusCancelled:
		t.token++
		t.state = Tier2Cancelled
	case chat.StatusFailed:
	default:
		t.state = Tier2Idle
	}
}

// Cancel is esc: it stops an armed countdown, or gives up the retry being sent, and returns
// the sent run for the caller to cancel (0 when none is running yet). Either way nothing
// more is sent for this retry.
func (t *Tier2) Cancel() (runID int64) {
	if !t.Active() {
		return 0
	}
	if t.state == Tier2Dispatching {
		runID = t.runID
	}
	t.token++
	t.state, t.runID = Tier2Cancelled, 0
	return runID
}

// Disarm forgets any retry, armed or being sent, because the operator moved on: a new
// message, a regeneration by hand, another session. Results of the old generation are
// ignored from now on.
func (t *Tier2) Disarm() {
	t.token++
	t.state, t.runID = Tier2Idle, 0
}

// Waiting says what the armed retry waits for at now, as both front ends show it before
// their own keys: "Provider overloaded — retrying in 8s (attempt 3)", or with provider advice
// beyond Tier2Cap "Rate limited — retrying after 14:50"; "sending" for a run that was held
// back unsent. It is "" when none is armed. The label is the stored one, unneutralised: the
// caller shows it as it shows any stored text.
func (t *Tier2) Waiting(now time.Time) string {
	if t.state != Tier2Armed {
		return ""
	}
	label, verb := t.waitWords()
	switch {
	case t.scheduled:
		return fmt.Sprintf("%s — %s after %s", label, verb, chat.FormatClock(t.due, now))
	case t.unsent:
		return fmt.Sprintf("%s — %s in %ds", label, verb, SecondsLeft(t.due, now))
	}
	return fmt.Sprintf("%s — %s in %ds (attempt %d)", label, verb, SecondsLeft(t.due, now), t.attempt)
}

// Awaited says what the armed retry waits for without when, for a front end that says the wait
// once with its time after it (the chat screen's screen-reader mode): "Provider overloaded —
// attempt 3, retrying", "Rate limited — sending". It is "" when none is armed.
func (t *Tier2) Awaited() string {
	if t.state != Tier2Armed {
		return ""
	}
	label, verb := t.waitWords()
	if t.scheduled || t.unsent {
		return label + " — " + verb
	}
	return fmt.Sprintf("%s — attempt %d, %s", label, t.attempt, verb)
}

// waitWords are the armed retry's label and verb: "sending" for a run that was held back
// unsent, else "retrying".
func (t *Tier2) waitWords() (label, verb string) {
	label = t.class.Label
	if label == "" {
		label = chat.Label(t.class.Class)
	}
	if t.unsent {
		return label, "sending"
	}
	return label, "retrying"
}
