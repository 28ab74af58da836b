package notify

import (
	"testing"
	"time"
)

// The title is the session's, or parley's, with no control character that would end the OSC
// it is written in.
func TestTitle(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		session   string
		streaming bool
		want      string
	}{
		{"", false, "parley"}, {"", true, "… parley"}, {"Keys", false, "Keys — parley"},
		{"evil\x07\x1b]0;x\u009c\xff", true, "… evil]0;x — parley"},
	} {
		if got := Title(c.session, c.streaming); got != c.want {
			t.Errorf("Title(%q, %v) = %q, want %q", c.session, c.streaming, got, c.want)
		}
	}
}

// A reply's end is signalled once: the next end without a start is silent.
func TestEndedOnce(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	tn := New("")
	tn.Started(now)
	if got := tn.Ended(now.Add(MinReply), false); got != "\a" {
		t.Fatalf("at MinReply: %q", got)
	}
	if got := tn.Ended(now.Add(time.Minute), false); got != "" {
		t.Fatalf("again: %q", got)
	}
}
