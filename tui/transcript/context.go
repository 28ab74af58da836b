package transcript

import (
	"parley/internal/chat"
)

// This file keeps what the transcript shows of the context budget: each message's number (the
// leave-out line and /compact name messages by it), the pinned mark, and the line where
// /compact cut.

// renumber numbers the operator messages and replies from 1, in the order shown; a render whose
// number changed is stale.
func (t *List) renumber() {
	n := t.earlier
	for _, e := range t.entries {
		num := 0
		if selectable(e.message) && !t.unnumbered {
			n++
			num = n
		}
		if e.number != num {
			e.number = num
			e.version++
		}
	}
}

// HideNumbers shows the messages without their numbers: a view of one reply's versions is no
// transcript to count in.
func (t *List) HideNumbers() {
	t.unnumbered = true
	t.renumber()
}

// SetEarlier says that n operator messages and replies, not shown yet, come before the first
// shown: the numbers start after them, and stay when Prepend adds them.
func (t *List) SetEarlier(n int) {
	t.earlier = n
	t.renumber()
}

// Number returns the number message id is shown with, 0 when it is not shown or is a system
// prompt.
func (t *List) Number(id int64) int {
	if e := t.byID[id]; e != nil {
		return e.number
	}
	return 0
}

// SetPinned shows message id as pinned, or no longer.
func (t *List) SetPinned(id int64, pinned bool) {
	if e := t.byID[id]; e != nil && e.message.Pinned != pinned {
		e.message.Pinned = pinned
		e.version++
	}
}

// SetCompaction shows where /compact cut: a line above message before (the first shown at or
// after it); 0 shows none.
func (t *List) SetCompaction(before int64) {
	found := false
	for _, e := range t.entries {
		cut := before != 0 && !found && e.message.ID >= before && e.message.Role != chat.RoleSystem
		found = found || cut
		if e.cut != cut {
			e.cut = cut
			e.version++
		}
	}
	t.compactedBefore = before
}
