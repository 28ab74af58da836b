package e2e

import (
	"strings"
	"time"
)

// selectGuard is how long after a reply ends esc stops rather than selects replies, as the
// docs/keys.md promises ("at least 600 ms after a reply ended or was stopped").
const selectGuard = 600 * time.Millisecond

// typingGap is the time between a person's enter and their next key, as the tests type it:
// keys that reach the screen closer than its 25 ms after an enter are a paste arriving as keys,
// and one message. On a loaded machine the screen may read keys sent 80 ms apart together, so
// the tests leave more.
const typingGap = 400 * time.Millisecond

// escSelects presses esc to select replies and waits until the screen shows shows. Within
// selectGuard of a reply's end esc is taken for a late stop, and the screen says esc again
// selects: then it is pressed again, as the screen says.
func (p *pane) escSelects(shows string) {
	p.t.Helper()
	p.key("Escape")
	if s := p.waitScreenAny(shows, "again selects replies"); !strings.Contains(s, shows) {
		p.t.Log("esc came within selectGuard of the reply's end and asked: pressed again")
		p.press("Escape", shows)
	}
}
