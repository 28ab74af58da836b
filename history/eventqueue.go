package history

import "parley/internal/chat"

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
