package transcript

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"parley/internal/sanitize"
	"parley/internal/wrap"
)

// This file holds what the screen tells the transcript, and the first screen: before the
// first message, the transcript's place says what parley is, what it talks to, and the keys
// that help and leave.

// Options are what the transcript knows of the screen around it.
type Options struct {
	// Demo is set when the endpoint is parley's built-in offline demo; Endpoint names the
	// endpoint and model otherwise.
	Demo     bool
	Endpoint string
	// Opening is set while the session shown at start is read: the first screen waits for it,
	// so that a stored session does not open on it.
	Opening bool
	// ExpandKey shows a collapsed paste whole, HelpKey lists the keys, QuitKey leaves.
	ExpandKey, HelpKey, QuitKey string
}

// SetOptions sets what the transcript knows of the screen; the operator messages draw again
// when the key that expands their pastes changed.
func (t *List) SetOptions(o Options) {
	if o.ExpandKey != t.opts.ExpandKey {
		for _, e := range t.entries {
			if e.folded() {
				e.version++
			}
		}
	}
	t.opts = o
}

// introLines is the first screen's text, each line to be centred: short lines, so that a
// narrow screen wraps none inside a command (a wrap breaks --base-url at its hyphen).
func (t *List) introLines() []string {
	o := t.opts
	out := []string{"parley", "a terminal chat for OpenAI-compatible endpoints", ""}
	if o.Demo {
		out = append(out,
			"This is the built-in offline demo: replies are canned,",
			"and nothing leaves this machine.",
			"For a real model: OPENAI_API_KEY=… parley",
			"or parley --base-url URL --model NAME",
			"(docs/configuration.md says more)")
	} else if o.Endpoint != "" {
		out = append(out, "Talking to "+sanitize.String(o.Endpoint)+". Type a message; enter sends it.")
	}
	keys := o.HelpKey + " lists the keys · " + o.QuitKey + " or /quit leaves"
	return append(out, "", keys)
}

// intro draws the first screen: introLines wrapped to the width, each line centred, the whole
// in the middle of height lines.
func (t *List) intro() []string {
	st := t.styles
	w := t.width - gutter
	var body []string
	lines := t.introLines()
	if t.opts.Opening {
		lines = nil
	}
	for i, l := range lines {
		for _, wl := range wrap.Lines(l, max(w-4, 10)) {
			if wl == "" {
				body = append(body, "")
				continue
			}
			pad := strings.Repeat(" ", max((w-ansi.StringWidth(wl))/2, 0))
			switch {
			case i == 0:
				wl = st.ReplyLabel.Render(wl)
			case i == 1:
				wl = st.Muted.Render(wl)
			}
			body = append(body, pad+wl)
		}
	}
	out := make([]string, 0, t.height)
	for range max((t.height-len(body))/2, 0) {
		out = append(out, "")
	}
	for _, l := range body {
		if len(out) == t.height {
			break
		}
		out = append(out, "  "+l)
	}
	for len(out) < t.height {
		out = append(out, "")
	}
	return out
}

// Intro is the first screen's text, unstyled, while it shows: before the first message, once
// the session read at start has none; nil otherwise.
func (t *List) Intro() []string {
	if t.opts.Opening || len(t.entries) > 0 {
		return nil
	}
	return t.introLines()
}
