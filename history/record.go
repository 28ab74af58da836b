package history

import (
	"cmp"
	"strings"
	"sync"
	"time"

	"parley/history/stored"
	"parley/internal/chat"
)

// flushDelay is the longest streamed text waits before it is written.
const flushDelay = 250 * time.Millisecond

// maxUnstored bounds the streamed text a run holds while the database refuses it for a while
// (another parley's write lock): past it, the text goes to the recovery file.
const maxUnstored = 4 << 20

// Record persists run runID as its events pass through and forwards every event, unchanged and
// in order, on the returned channel, which it closes after the terminal event.
//
// The first event that is not terminal starts the run. Delta text is written in batches, at most
// 250 ms (by clock) after it arrived, by a writer of its own: a database that is slow or locked
// never holds the events back. Usage is summed and attempts are counted from EventStarted. A run
// whose first event is terminal goes straight from queued to failed or cancelled: it sent no
// request. If events closes without a terminal event, the run is stored as failed (network) and
// an EventFailed saying so is forwarded last.
//
// The terminal event is forwarded once the run's end is stored: the outcome shown is the outcome
// stored. Its text, stored already as chunks, is folded into the reply once the reader has
// taken the end and the channel is closed (foldReply). What the database cannot take (it is
// full, read-only or damaged, or another parley's lock outlasts maxUnstored of text or the end)
// goes to the recovery file instead, from then on for the whole run, and the terminal event
// carries NotStored saying so; Open folds it back. A runID below 0 is a run the database never
// had (PostToRecovery): it is recovered whole.
func (db *DB) Record(runID int64, events <-chan chat.Event, clock chat.Clock) <-chan chat.Event {
	out := make(chan chat.Event)
	go db.record(runID, events, clock, out)
	return out
}

func (db *DB) record(runID int64, in <-chan chat.Event, clock chat.Clock, out chan<- chat.Event) {
	w := newRunWriter(db, runID, clock)
	folds := false
	var queue eventQueue // events not yet taken by the reader
	var ended <-chan string
	var terminal chat.Event
	for open := true; open || ended != nil || !queue.empty(); {
		var send chan<- chat.Event
		var next chat.Event
		if !queue.empty() {
			send, next = out, queue.front()
		}
		var recv <-chan chat.Event
		if open && ended == nil {
			recv = in
		}
		var closing <-chan struct{}
		if !open && ended == nil { // the end is known: only the reader is awaited
			closing = db.closing
		}
		select {
		case send <- next:
			queue.pop()
		case <-closing:
			// The database closes while the end waits for a reader that may never come:
			// the reply is folded now, and the reader, if any, finds the channel closed.
			queue = eventQueue{}
		case notStored := <-ended:
			terminal.NotStored, ended = notStored, nil
			if folds = notStored == ""; !folds {
				db.folding.RUnlock() // nothing to fold
			}
			terminal.Thought = w.thought()
			queue.push(terminal)
		case ev, ok := <-recv:
			if !ok {
				ev = chat.Event{Kind: chat.EventFailed, Class: chat.EndedWithoutResult}
			}
			if ev.Terminal() {
				terminal, open = ev, false
				// Close waits for the fold from before the end is stored: an end seen stored
				// is folded before Close returns.
				db.folding.RLock()
				ended = w.end(chat.Decide(ev, true), ev.FinishReason, ev.Model)
				continue
			}
			w.note(ev)
			queue.push(ev)
		}
	}
	close(out)
	// The reader has taken the end: the reply's text is folded into it now, not before.
	if folds {
		db.foldReply(runID)
		db.folding.RUnlock()
	}
}

// runWriter stores one run's text and end, off the event path.
type runWriter struct {
	db    *DB
	runID int64
	clock chat.Clock
	// mu guards what the event path hands over: the text not yet taken by the writer, whether
	// the run has begun, the usage and attempts, and when the newest attempt was sent and the
	// thinking began and last came.
	mu                    sync.Mutex
	content, reasoning    strings.Builder
	begun                 bool
	attempts              int
	usage                 chat.Usage
	sentAt                time.Time
	firstWord             time.Duration // from sentAt to the first word of the attempt that gave one
	thinkFrom, thinkUntil time.Time
	wake                  chan struct{}
	ends                  chan endRequest
	// armed is set while a flush timer is on its way to the writer (flushes); the event path
	// arms it, so that a batch's timer runs from its first text, whatever the writer is doing.
	armed                     bool
	flushes                   chan (<-chan time.Time)
	unstoredContent, unstored strings.Builder // taken by the writer, not stored yet (its own)
	// streamed and streamedReasoning are all the run's text taken so far (its own): sent whole
	// to the recovery file when the database file leaves its path.
	streamed, streamedReasoning strings.Builder
	started                     bool // the run is running in the database (its own)
	// recovering is set once anything of the run went to the recovery file: the rest follows
	// it there, so that the text stays in order. cause says why; where is the file; lost is
	// set when the recovery file could not be written either.
	recovering  bool
	cause       string
	where, lost string
}

type endRequest struct {
	outcome             chat.Outcome
	finishReason, model string
	done                chan string
}

func newRunWriter(db *DB, runID int64, clock chat.Clock) *runWriter {
	// ends holds the end until the writer takes it: the event path never waits for a store.
	w := &runWriter{db: db, runID: runID, clock: clock, wake: make(chan struct{}, 1), ends: make(chan endRequest, 1),
		flushes: make(chan (<-chan time.Time), 1)}
	if runID < 0 {
		w.recovering, w.cause = true, "its message could not be stored"
		if cause, ok := db.unsaved.Load(runID); ok {
			w.cause = cause.(string)
		}
	}
	go w.run()
	return w
}

// note takes in a non-terminal event, on the event path: it never waits for the database.
func (w *runWriter) note(ev chat.Event) {
	w.mu.Lock()
	w.begun = true
	switch ev.Kind {
	case chat.EventStarted:
		w.attempts++
		w.sentAt = w.clock.Now()
	case chat.EventUsage:
		w.usage.Add(ev.Usage)
	case chat.EventDelta:
		w.noteFirstWord()
		w.content.WriteString(ev.Text)
	case chat.EventReasoning:
		w.noteFirstWord()
		w.reasoning.WriteString(ev.Text)
		now := w.clock.Now()
		if w.thinkFrom.IsZero() {
			w.thinkFrom = cmp.Or(w.sentAt, now)
		}
		w.thinkUntil = now
	}
	if w.content.Len()+w.reasoning.Len() > 0 && !w.armed {
		w.armed = true
		w.flushes <- w.clock.After(flushDelay)
	}
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// noteFirstWord notes, at the run's first word, how long it took; w.mu is held.
func (w *runWriter) noteFirstWord() {
	if w.firstWord == 0 && w.content.Len()+w.reasoning.Len() == 0 && !w.sentAt.IsZero() {
		w.firstWord = max(time.Nanosecond, w.clock.Now().Sub(w.sentAt))
	}
}

// thought returns how long the run's model thought: from the request that thought being sent
// until its last thinking; 0 when it did not think.
func (w *runWriter) thought() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.thinkUntil.Sub(w.thinkFrom)
}

// end asks the writer to store the run's end; the channel gives "" once it is stored, or what
// NotStored says.
func (w *runWriter) end(o chat.Outcome, finishReason, model string) <-chan string {
	done := make(chan string, 1)
	w.ends <- endRequest{outcome: o, finishReason: finishReason, model: model, done: done}
	return done
}

func (w *runWriter) run() {
	var flush, retry <-chan time.Time
	for {
		// An end goes before any store: finishing stores all that waits, and each store tried
		// under another parley's lock waits out busyTimeout.
		select {
		case req := <-w.ends:
			req.done <- w.finish(req)
			return
		default:
		}
		select {
		case <-w.wake:
			if w.waitsToStart() {
				w.start() // the run shows as running at once, not a flush later
			}
		case flush = <-w.flushes:
		case <-flush:
			flush = nil
			w.mu.Lock()
			w.armed = false
			w.mu.Unlock()
			if w.store() {
				retry = w.clock.After(flushDelay) // held back: tried again
			}
		case <-retry:
			retry = nil
			if w.store() {
				retry = w.clock.After(flushDelay)
			}
		case req := <-w.ends:
			req.done <- w.finish(req)
			return
		}
	}
}

// waitsToStart reports whether the run has begun but not started in the database.
func (w *runWriter) waitsToStart() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.begun && !w.started && !w.recovering
}

// take moves the text handed over into the writer's own, and returns whether the run began.
func (w *runWriter) take() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.unstoredContent.WriteString(w.content.String())
	w.unstored.WriteString(w.reasoning.String())
	w.streamed.WriteString(w.content.String())
	w.streamedReasoning.WriteString(w.reasoning.String())
	w.content.Reset()
	w.reasoning.Reset()
	return w.begun
}

// store writes what waits, and reports whether some of it is still waiting: the database was
// busy, and the text is tried again later.
func (w *runWriter) store() (waiting bool) {
	if !w.take() {
		return false
	}
	if w.recovering {
		w.spill()
		return false
	}
	err := w.startAndAppend()
	switch {
	case err == nil:
		return false
	case FaultOf(err).Transient() && w.unstoredContent.Len()+w.unstored.Len() < maxUnstored:
		return true
	}
	w.recover(err)
	w.spill()
	return false
}

// start starts the run in the database. A lock held elsewhere leaves it for the next store;
// any other failure sends the run to the recovery file.
func (w *runWriter) start() {
	err := w.db.StartRun(w.runID)
	switch {
	case err == nil:
		w.started = true
	case !FaultOf(err).Transient():
		w.recover(err)
	}
}

// startAndAppend starts the run if it has not started, and appends the text that waits.
func (w *runWriter) startAndAppend() error {
	if !w.started {
		if err := w.db.StartRun(w.runID); err != nil {
			return err
		}
		w.started = true
	}
	if err := w.db.AppendReply(w.runID, w.unstoredContent.String(), w.unstored.String()); err != nil {
		return err
	}
	w.unstoredContent.Reset()
	w.unstored.Reset()
	return nil
}

// finish stores the text that waits and the run's end, trying twice while another parley holds
// the lock (each try waits out busyTimeout), and returns what NotStored says: "" when stored.
func (w *runWriter) finish(req endRequest) string {
	begun := w.take()
	w.mu.Lock()
	f := stored.Finish{Status: req.outcome.Status, Retry: req.outcome.Retry, Attempts: w.attempts, Usage: w.usage,
		FinishReason: req.finishReason, Model: req.model, Thought: w.thinkUntil.Sub(w.thinkFrom), FirstWord: w.firstWord}
	w.mu.Unlock()
	for try := 0; !w.recovering; try++ {
		var err error
		if begun || w.unstoredContent.Len()+w.unstored.Len() > 0 {
			err = w.startAndAppend()
		}
		if err == nil {
			if err = w.db.endRun(w.runID, f); err == nil {
				return ""
			}
		}
		if !FaultOf(err).Transient() || try == 1 {
			w.recover(err)
		}
	}
	w.spill()
	w.keep(recoveryRecord{Kind: "end", End: &recoveredEnd{Status: f.Status, Retry: f.Retry, Attempts: f.Attempts,
		Usage: f.Usage, FinishReason: f.FinishReason, Model: f.Model, Thought: f.Thought, FirstWord: f.FirstWord}})
	return w.notStored()
}

// recover sends the rest of the run to the recovery file, because of err. When the database
// file left its path, what it holds of the run is not where it will be read: the whole run, its
// operator message with it, goes to the recovery file as a run the database never had, which
// the file at the path takes in a new session.
func (w *runWriter) recover(err error) {
	w.recovering, w.cause = true, w.db.storageError(err).Error()
	w.db.log.Error("history: storing a reply failed; the rest goes to the recovery file", "run", w.runID, "err", err)
	if FaultOf(err) != FaultGone || w.runID < 0 {
		return
	}
	content, model, readErr := w.db.heldAnchor(w.runID)
	if readErr != nil {
		w.db.log.Error("history: reading the message a run answers from the file that left its path", "run", w.runID, "err", readErr)
	}
	w.runID = newRef()
	w.keep(recoveryRecord{Kind: "post", Content: content, Model: model})
	w.unstoredContent.Reset()
	w.unstored.Reset()
	w.unstoredContent.WriteString(w.streamed.String())
	w.unstored.WriteString(w.streamedReasoning.String())
}

// spill appends the text that waits to the recovery file.
func (w *runWriter) spill() {
	if w.unstoredContent.Len()+w.unstored.Len() == 0 {
		return
	}
	w.keep(recoveryRecord{Kind: "text", Content: w.unstoredContent.String(), Reasoning: w.unstored.String()})
	w.unstoredContent.Reset()
	w.unstored.Reset()
}

// keep appends rec, of this run, to the recovery file.
func (w *runWriter) keep(rec recoveryRecord) {
	rec.DB, rec.Owner, rec.Cause, rec.At = w.db.path, w.db.token, w.cause, w.db.clock.Now()
	if w.runID < 0 {
		rec.Ref = refOf(w.runID)
	} else {
		rec.Run = w.runID
	}
	where, err := w.db.recovery.append(rec)
	if err != nil {
		w.lost = err.Error()
		w.db.log.Error("history: the recovery file could not be written either", "run", w.runID, "err", err)
		return
	}
	w.where = where
}

// notStored says what the run's NotStored does: not saved, why, and where the text is.
func (w *runWriter) notStored() string {
	s := "not saved: " + w.cause
	if w.lost != "" {
		return s + "; the recovery file could not be written either (" + w.lost + "): keep the text shown"
	}
	return s + "; the text is kept in " + w.where + " and goes into the database when parley next opens it with room"
}
