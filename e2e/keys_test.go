package e2e

import "time"

// selectGuard is how long after a reply ends esc stops rather than selects replies, as the
// README promises ("at least 600 ms after a reply ended or was stopped").
const selectGuard = 600 * time.Millisecond

// typingGap is the least time between a person's enter and their next key, as the tests type
// it: keys that come closer after an enter are a paste arriving as keys, and one message.
const typingGap = 80 * time.Millisecond
