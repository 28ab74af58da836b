package e2e

import "time"

// selectGuard is how long after a reply ends esc stops rather than selects replies, as the
// README promises ("at least 600 ms after a reply ended or was stopped").
const selectGuard = 600 * time.Millisecond
