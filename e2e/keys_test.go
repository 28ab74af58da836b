package e2e

import "time"

// selectGuard is how long after a reply ends esc stops rather than selects replies, as the
// docs/keys.md promises ("at least 600 ms after a reply ended or was stopped").
const selectGuard = 600 * time.Millisecond

// typingGap is the time between a person's enter and their next key, as the tests type it:
// keys that reach the screen closer than its 25 ms after an enter are a paste arriving as keys,
// and one message. On a loaded machine the screen may read keys sent 80 ms apart together, so
// the tests leave more.
const typingGap = 400 * time.Millisecond
