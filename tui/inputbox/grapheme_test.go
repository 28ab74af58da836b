package inputbox

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// keyed hands the box a key without text.
func keyed(b Box, code rune) Box {
	b, _ = b.Update(tea.KeyPressMsg{Code: code})
	return b
}

// The box moves over and deletes what a reader sees as one character: a ZWJ emoji, a letter
// with a combining accent, a flag, an emoji with a skin tone.
func TestInputEditsByGraphemeCluster(t *testing.T) {
	for _, cluster := range []string{
		"👩‍👩‍👧‍👦", // a family: four people joined with ZWJ
		"e\u0301", // e and a combining acute accent
		"🇳🇴",      // a flag: two regional indicators
		"👍🏽",      // a thumb with a skin tone
		"🏳️‍🌈",    // a flag, a variation selector, ZWJ, a rainbow
	} {
		b := typeText(newBox(40), "a"+cluster+"b")
		b = keyed(b, tea.KeyLeft) // before b
		b = keyed(b, tea.KeyBackspace)
		if got := b.Value(); got != "ab" {
			t.Errorf("%q: one backspace left %q, want the cluster gone", cluster, got)
		}
		b = typeText(newBox(40), "a"+cluster+"b")
		b = keyed(b, tea.KeyHome)
		b = keyed(b, tea.KeyRight) // after a
		b = keyed(b, tea.KeyRight) // after the cluster, never inside it
		b = typeText(b, "|")
		if got, want := b.Value(), "a"+cluster+"|b"; got != want {
			t.Errorf("%q: → twice then | gives %q, want %q", cluster, got, want)
		}
		b = keyed(b, tea.KeyLeft)
		b = keyed(b, tea.KeyLeft) // before the cluster
		b = keyed(b, tea.KeyDelete)
		if got := b.Value(); got != "a|b" {
			t.Errorf("%q: delete left %q", cluster, got)
		}
	}
	// A long line of clusters costs a key what a short one does: only the cursor's
	// neighbourhood is segmented, and that is right far into the line too.
	long := strings.Repeat("👩‍👩‍👧‍👦x", 5000)
	b := newBox(40)
	b.SetValue(long)
	b = keyed(b, tea.KeyLeft)
	b = keyed(b, tea.KeyBackspace)
	if got := b.Value(); got != long[:len(long)-len("👩‍👩‍👧‍👦x")]+"x" {
		t.Fatalf("far into a long line, backspace left the end %q", got[len(got)-40:])
	}
}
