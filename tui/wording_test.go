package tui

import (
	"strings"
	"testing"
	"time"

	"parley/internal/demo"
)

// The help line says what a key does now: while a retry's reply is being written, esc stops
// that reply, not "the retry".
func TestEscWhileARetrysReplyStreamsCancelsTheReply(t *testing.T) {
	t.Parallel()
	d, srv, clock, _ := demoScreen(t, tier2Config(demo.Overloaded(), demo.Fault{StallAfter: 3}))
	d.sendUntilArmed("hello")
	if s := plain(d.m); !strings.Contains(s, "esc cancel retry") {
		t.Fatalf("armed:\n%s", s)
	}
	d.advance(clock, time.Second)
	d.advance(clock, time.Second)
	d.until("the retry's reply", func(m Model) bool { return m.active != nil && m.active.gotOutput && srv.Requests() == 2 })
	if s := plain(d.m); !strings.Contains(s, "esc cancel reply") || strings.Contains(s, "cancel retry") {
		t.Fatalf("the retry's reply is being written:\n%s", s)
	}
}

// A /file that fails leaves its line in the input, to mend, as a failed command does.
func TestAFailedFileCommandKeepsItsLine(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, nil, 100, 24)
	m = typeText(m, "/file nope-k25")
	m = runCmds(step(m, press("enter")))
	if m.input.Value() != "/file nope-k25" || !strings.Contains(m.notice, "nope-k25") {
		t.Fatalf("input %q, notice %q", m.input.Value(), m.notice)
	}
}

// ctrl+f with no retry to send to a fallback says why it does nothing, and the fix.
func TestFallbackKeyWithoutAFallbackSaysSo(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, storedExchanges(1), 100, 24)
	m, _ = step(m, press("ctrl+f"))
	if !strings.Contains(m.notice, "ctrl+f: no fallback endpoint — set fallback = \"PROFILE\" in this profile of config.toml") {
		t.Fatalf("ctrl+f: notice %q", m.notice)
	}
	// With a draft, ctrl+f moves the cursor, as it always did.
	m = typeText(loadedModel(t, nil, 100, 24), "ab")
	m, _ = step(m, press("ctrl+f"))
	if m.notice != "" {
		t.Fatalf("ctrl+f in a draft: notice %q", m.notice)
	}
}

// The demo's refused key and parley's fix say the same: no key was sent.
func TestDemoBadKeySaysOneThing(t *testing.T) {
	t.Parallel()
	d, _, _, _ := demoScreen(t, screenConfig{})
	d.typeAndSend("/demo badkey")
	d.typeAndSend("hello")
	d.until("the failure", func(m Model) bool { return m.active == nil && m.transcript.Len() == 2 })
	s := strings.Join(strings.Fields(plain(d.m)), " ")
	if !strings.Contains(s, "You didn't provide an API key") || !strings.Contains(s, "no API key was sent") || strings.Contains(s, "Incorrect API key provided") {
		t.Fatalf("the refused key:\n%s", plain(d.m))
	}
}

// A question asked with r and then forgotten takes its notice with it.
func TestAForgottenRegenerateQuestionLeavesNoNotice(t *testing.T) {
	t.Parallel()
	m := loadedModel(t, storedExchanges(2), 100, 24)
	m.focus.toTranscript(&m.input, m.transcript)
	m, _ = step(m, press("k"))
	m, _ = step(m, press("k")) // the earlier reply
	m, _ = step(m, press("r"))
	if !strings.Contains(m.overlays.asked(), "r again to regenerate from here") || !strings.Contains(plain(m), "r again") {
		t.Fatalf("r on an earlier reply did not ask: %q", m.overlays.asked())
	}
	m, _ = step(m, press("j"))
	if m.overlays.asked() != "" || m.notice != "" || strings.Contains(plain(m), "r again") {
		t.Fatalf("the question outlived its key: %q", m.overlays.asked())
	}
}
