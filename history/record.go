package history

import (
	"log/slog"
	"strings"
	"time"

	"parley/agent"
	"parley/retry"
)

// flushDelay is the longest streamed text waits before it is written.
const flushDelay = 250 * time.Millisecond

// endedWithoutResult is stored when a run's events stop without a terminal event.
var endedWithoutResult = retry.Classification{
	Retryable: true,
	Class:     retry.Network,
	Label:     retry.Label(retry.Network),
	Message:   "the run ended without a result",
}

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
func (db *DB) Record(runID int64, events <-chan agent.Event, clock retry.Clock) <-chan agent.Event {
	out := make(chan agent.Event)
	go db.record(runID, events, clock, out)
	return out
}

// recorder is the state of one Record.
type recorder struct {
	db       *DB
	runID    int64
	started  bool
	pending  strings.Builder
	attempts int
	usage    agent.Usage
}

func (db *DB) record(runID int64, in <-chan agent.Event, clock retry.Clock, out chan<- agent.Event) {
	defer close(out)
	rec := &recorder{db: db, runID: runID}
	var queue eventQueue // events not yet taken by the reader
	var flush <-chan time.Time
	done := false
	for !done || !queue.empty() {
		var send chan<- agent.Event
		var next agent.Event
		if !queue.empty() {
			send, next = out, queue.front()
		}
		var recv <-chan agent.Event
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
				ev = agent.Event{Kind: agent.EventFailed, Class: endedWithoutResult}
			}
			if ev.Terminal() {
				rec.finish(ev)
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
	blocks [][]agent.Event // the front is blocks[0][head]
	head   int
	spare  []agent.Event
}

func (q *eventQueue) empty() bool { return len(q.blocks) == 0 }

func (q *eventQueue) front() agent.Event { return q.blocks[0][q.head] }

func (q *eventQueue) push(ev agent.Event) {
	n := len(q.blocks)
	if n == 0 || len(q.blocks[n-1]) == queueBlock {
		b := q.spare
		if b == nil {
			b = make([]agent.Event, 0, queueBlock)
		}
		q.spare = nil
		q.blocks = append(q.blocks, b)
		n++
	}
	q.blocks[n-1] = append(q.blocks[n-1], ev)
}

func (q *eventQueue) pop() {
	b := q.blocks[0]
	b[q.head] = agent.Event{} // the reader has it: drop the text
	if q.head++; q.head == len(b) {
		q.blocks[0] = nil
		q.blocks, q.head, q.spare = q.blocks[1:], 0, b[:0]
	}
}

// note takes in a non-terminal event and reports whether it left text waiting to be written.
func (r *recorder) note(ev agent.Event) bool {
	if !r.started {
		r.started = true
		r.log("starting run", r.db.StartRun(r.runID))
	}
	switch ev.Kind {
	case agent.EventStarted:
		r.attempts++
	case agent.EventUsage:
		r.usage.PromptTokens += ev.Usage.PromptTokens
		r.usage.CompletionTokens += ev.Usage.CompletionTokens
	case agent.EventDelta:
		r.pending.WriteString(ev.Text)
	}
	return r.pending.Len() > 0
}

// flush writes the text waiting to be written. Text that could not be written stays waiting,
// to be tried again with the next flush.
func (r *recorder) flush() {
	if r.pending.Len() == 0 {
		return
	}
	err := r.db.AppendReply(r.runID, r.pending.String())
	r.log("storing reply text", err)
	if err == nil {
		r.pending.Reset()
	}
}

// finish stores the end of the run that terminal event ev reports.
func (r *recorder) finish(ev agent.Event) {
	r.flush()
	f := Finish{Attempts: r.attempts, Usage: r.usage}
	switch {
	case ev.Kind == agent.EventFinished:
		f.Status = StatusSucceeded
	case ev.Kind == agent.EventCancelled, ev.Class.Class == retry.Cancelled:
		f.Status = StatusCancelled
	default:
		f.Status = StatusFailed
		c := ev.Class
		f.Retry = &c
	}
	r.log("finishing run", r.db.FinishRun(r.runID, f))
}

func (r *recorder) log(what string, err error) {
	if err != nil {
		slog.Error("history: "+what, "run", r.runID, "err", err)
	}
}
