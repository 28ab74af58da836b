package printmode

import (
	"context"
	"fmt"
	"io"

	"parley/internal/chat"
	"parley/internal/sanitize"
	"parley/retry"
)

// Countdown waits on clock for the retry t armed, saying so on stderr as Tier 2 words it
// (Tier2.Waiting): a line redrawn each second on a terminal, one line otherwise. It reports
// false when ctx ended first. Print mode's --wait uses it, and so does asking an endpoint
// for its models with --wait.
func Countdown(ctx context.Context, clock chat.Clock, t *retry.Tier2, stderr io.Writer, terminal bool) bool {
	if terminal {
		defer fmt.Fprint(stderr, "\r\x1b[K")
	}
	token := t.Token()
	for shown := false; ; shown = true {
		now := clock.Now()
		fire, next := t.Tick(token, now)
		if fire {
			return true
		}
		line := "parley: " + sanitize.String(t.Waiting(now)) + " · ctrl+c stops"
		switch {
		case terminal:
			fmt.Fprint(stderr, "\r\x1b[K"+line)
		case !shown:
			fmt.Fprintln(stderr, line)
		}
		if !terminal {
			// Nothing is redrawn off a terminal: wait for the retry itself.
			next = t.Due().Sub(now)
		}
		select {
		case <-ctx.Done():
			return false
		case <-clock.After(next):
		}
	}
}
