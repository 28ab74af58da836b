package tui

import (
	"strings"
	"testing"
)

// A new session on the demo says, in the transcript's place, what parley is, that this is the
// offline demo and how to point it at a real endpoint, and the keys that help and leave; the
// first message takes its place.
func TestTheFirstScreenSaysWhatThisIs(t *testing.T) {
	t.Parallel()
	d, _, _, _ := demoScreen(t, screenConfig{})
	screen := plain(d.m)
	for _, want := range []string{"a terminal chat for OpenAI-compatible endpoints", "built-in offline demo",
		"For a real model: OPENAI_API_KEY=… parley\n", "or parley --base-url URL --model NAME\n", "docs/configuration.md", "? lists the keys · ctrl+c or /quit leaves"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("the first screen does not say %q:\n%s", want, screen)
		}
	}
	d.typeAndSend("hello")
	d.until("the reply", answered(t, 2))
	if screen := plain(d.m); strings.Contains(screen, "offline demo:") || strings.Contains(screen, "lists the keys") {
		t.Fatalf("the first screen outlived the first message:\n%s", screen)
	}
}

// On a real endpoint the first screen names it, and says nothing of the demo.
func TestTheFirstScreenNamesARealEndpoint(t *testing.T) {
	t.Parallel()
	screen := plain(loadedModel(t, nil, 100, 30))
	if !strings.Contains(screen, "Talking to ") || strings.Contains(screen, "demo") {
		t.Fatalf("the first screen on a real endpoint:\n%s", screen)
	}
}
