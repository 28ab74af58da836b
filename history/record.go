package history

import (
	"strings"
	"time"

	"parley/internal/chat"
)

// flushDelay is the longest streamed text waits before it is written.
const flushDelay = 250 * time.Millisecond

// Record persists run runID as its events pass through and forwards every event, unchanged and
// in order, on the returned channel, which it closes after the terminal event.
//
// The first event that is not terminal starts the run. Delta text is written in batches, at most
// 250 ms (by clock) after it arrived, even if no further event comes. Usage is summed and
// attempts are counted from EventStarted. The terminal event is forwarded only once the run's
// end is stored: EventFinished as succeeded, EventFailed as failed with its classification,
// EventCancelled as cancelled (never failed). A run whose first event is terminal goes
// straight from queued to failed or cancelled: it sent no request. If events closes without a
// terminal event, the run is stored as failed (network) and an EventFailed saying so is
// forwarded last.
//
// Database errors are logged and do not stop the forwarding. Forwarding does not wait for the
// reader: a slow reader never delays what is written.
func (db *DB) Record(runID int64, events <-chan chat.Event, clock chat.Clock) <-chan chat.Event {
	out := make(chan chat.Event)
	go db.record(runID, events, clock, out)
	return out
}

// recorder is the state of one Record.
type recorder struct {
	db      *DB
	runID   int64
	started bool
	// pending holds streamed text not yet written: the answer's and the thinking's.
	pending, pendingReasoning strings.Builder
	attempts                  int
	usage                     chat.Usage
}

func (db *DB) record(runID int64, in <-chan chat.Event, clock chat.Clock, out chan<- chat.Event) {
	defer close(out)
	rec := &recorder{db: db, runID: runID}
	var queue eventQueue // events not yet taken by the reader
	var flush <-chan time.Time
	done := false
	for !done || !queue.empty() {
		var send chan<- chat.Event
		var next chat.Event
		if !queue.empty() {
			send, next = out, queue.front()
		}
		var recv <-chan chat.Event
		if !done {
			recv = in
		}
		select {
		case send <- next:
			queue.pop()
		case <-flush:
			flush = nil
			rec.flush()
		case ev, ok := <-recv:
			if !ok {
				ev = chat.Event{Kind: chat.EventFailed, Class: chat.EndedWithoutResult}
			}
			if ev.Terminal() {
				rec.finish(chat.Decide(ev, true), ev.FinishReason)
				done = true
			} else if rec.note(ev) && flush == nil {
				flush = clock.After(flushDelay)
			}
			queue.push(ev)
		}
	}
}

// queueBlock is how many events one block of an eventQueue holds.
const queueBlock = 256

// eventQueue is a FIFO of events kept in blocks of queueBlock: a push never copies what is
// queued, however far the reader falls behind (a flood of deltas can outrun it), and the
// block the reader last emptied is reused.
type eventQueue struct {
	blocks [][]chat.Event // the front is blocks[0][head]
	head   int
	spare  []chat.Event
}

func (q *eventQueue) empty() bool { return len(q.blocks) == 0 }

func (q *eventQueue) front() chat.Event { return q.blocks[0][q.head] }

func (q *eventQueue) push(ev chat.Event) {
	n := len(q.blocks)
	if n == 0 || len(q.blocks[n-1]) == queueBlock {
		b := q.spare
		if b == nil {
			b = make([]chat.Event, 0, queueBlock)
		}
		q.spare = nil
		q.blocks = append(q.blocks, b)
		n++
	}
	q.blocks[n-1] = append(q.blocks[n-1], ev)
}

func (q *eventQueue) pop() {
	b := q.blocks[0]
	b[q.head] = chat.Event{} // the reader has it: drop the text
	if q.head++; q.head == len(b) {
		q.blocks[0] = nil
		q.blocks, q.head, q.spare = q.blocks[1:], 0, b[:0]
	}
}

// note takes in a non-terminal event and reports whether it left text waiting to be written.
func (r *recorder) note(ev chat.Event) bool {
	if !r.started {
		r.started = true
		r.log("starting run", r.db.StartRun(r.runID))
	}
	switch ev.Kind {
	case chat.EventStarted:
		r.attempts++
	case chat.EventUsage:
		r.usage.Add(ev.Usage)
	case chat.EventDelta:
		r.pending.WriteString(ev.Text)
	case chat.EventReasoning:
		r.pendingReasoning.WriteString(ev.Text)
	}
	return r.pending.Len()+r.pendingReasoning.Len() > 0
}

// flush writes the text waiting to be written. Text that could not be written stays waiting,
// to be tried again with the next flush.
func (r *recorder) flush() {
	if r.pending.Len()+r.pendingReasoning.Len() == 0 {
		return
	}
	err := r.db.AppendReply(r.runID, r.pending.String(), r.pendingReasoning.String())
	r.log("storing reply text", err)
	if err == nil {
		r.pending.Reset()
		r.pendingReasoning.Reset()
	}
}

// finish stores how the run ended, and why the endpoint said it ended.
func (r *recorder) finish(o chat.Outcome, finishReason string) {
	r.flush()
	f := Finish{Status: o.Status, Retry: o.Retry, Attempts: r.attempts, Usage: r.usage, FinishReason: finishReason}
	r.log("finishing run", r.db.FinishRun(r.runID, f))
}

func (r *recorder) log(what string, err error) {
	if err != nil {
		r.db.log.Error("history: "+what, "run", r.runID, "err", err)
	}
}
