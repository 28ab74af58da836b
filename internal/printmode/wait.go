package printmode

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"parley/internal/chat"
	"parley/internal/sanitize"
	"parley/retry"
)

// Countdown waits on clock for the retry t armed, saying so on stderr as Tier 2 words it
// (Tier2.Waiting), with the gateway route it waits for when there is one (route, from
// agent.Endpoint.RouteLabel): a line redrawn each second on a terminal, one line otherwise.
// It reports false when ctx ended first. Print mode's --wait uses it, and so does asking an
// endpoint for its models with --wait.
func Countdown(ctx context.Context, clock chat.Clock, t *retry.Tier2, stderr io.Writer, terminal bool, route string) bool {
	redraw := sanitize.Raw(stderr) // the line's text is neutralised already
	if terminal {
		defer fmt.Fprint(redraw, "\r\x1b[K")
	}
	token := t.Token()
	for shown := false; ; shown = true {
		now := clock.Now()
		fire, next := t.Tick(token, now)
		if fire {
			return true
		}
		line := "parley: " + sanitize.String(t.Waiting(now)+routeNote(route)) + " · ctrl+c stops"
		switch {
		case terminal:
			fmt.Fprint(redraw, "\r\x1b[K"+line)
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

// routeNote names a gateway route in what a wait for it says: " (route: api.portkey.ai …
// custom-host 127.0.0.1:9001)"; "" for an endpoint with no route beyond its URL.
func routeNote(route string) string {
	if route == "" {
		return ""
	}
	return " (route: " + route + ")"
}

// WithTimeout returns ctx ended once d has passed on clock, with the function that releases
// it: --timeout, which bounds all of print mode (asking for the model, every run, --wait's
// waits). d ≤ 0 sets no limit. A run the limit stopped is stored as cancelled, as far as it
// got, and reported as a retryable timeout (TimedOut).
func WithTimeout(ctx context.Context, clock chat.Clock, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	if d > 0 {
		go func() {
			select {
			case <-clock.After(d):
				cancel(timeoutError{d})
			case <-ctx.Done():
			}
		}()
	}
	return ctx, func() { cancel(nil) }
}

// timeoutError is why WithTimeout's context ends.
type timeoutError struct{ after time.Duration }

func (e timeoutError) Error() string { return "stopped after --timeout " + typed(e.after) }

// TimedOut is the failure of print mode when --timeout ended ctx (WithTimeout), nil otherwise.
func TimedOut(ctx context.Context) *chat.Classification {
	var e timeoutError
	if !errors.As(context.Cause(ctx), &e) {
		return nil
	}
	cls := chat.NewClassification(chat.Timeout, e.Error())
	return &cls
}

// typed writes d as it is typed: 30s, 5m, 2h, 1m30s (not 5m0s).
func typed(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
