package history

import (
	"fmt"
	"testing"

	"parley/internal/chat"
)

// The queue between a run and a reader that falls behind hands events over in order, across
// its blocks, whether the reader lags by a few events or by thousands.
func TestEventQueueKeepsOrder(t *testing.T) {
	t.Parallel()
	var q eventQueue
	pushed, popped := 0, 0
	pop := func(n int) {
		for ; n > 0 && !q.empty(); n-- {
			if got, want := q.front().Text, fmt.Sprint(popped); got != want {
				t.Fatalf("event %q handed over as number %s", got, want)
			}
			q.pop()
			popped++
		}
	}
	for _, step := range []struct{ push, pop int }{{1, 1}, {3, 1}, {700, 200}, {1, 1000}, {5000, 4999}, {300, 1000}} {
		for range step.push {
			q.push(chat.Event{Kind: chat.EventDelta, Text: fmt.Sprint(pushed)})
			pushed++
		}
		pop(step.pop)
	}
	if !q.empty() || popped != pushed {
		t.Fatalf("%d pushed, %d handed over, empty %v", pushed, popped, q.empty())
	}
	// The emptied block is kept for the next push.
	if q.spare == nil {
		t.Fatal("no block kept for reuse")
	}
}
