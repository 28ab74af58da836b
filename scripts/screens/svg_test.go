package main

import (
	"encoding/xml"
	"strings"
	"testing"
)

// svg draws a header cell's background and bold glyphs, fills the terminal's own colours in
// for reverse video, escapes what XML reserves and leaves runs of plain spaces out.
func TestSVG(t *testing.T) {
	screen := "\x1b[1m\x1b[38;5;255m\x1b[48;5;60m a<b \x1b[0m      \x1b[7mrev\x1b[0m\n"
	for _, light := range []bool{false, true} {
		out := svg(screen, "a & b", light)
		if err := xml.Unmarshal([]byte(out), new(struct{})); err != nil {
			t.Fatalf("not XML: %v\n%s", err, out)
		}
		termFg, termBg := "#ffffff", "#000000"
		if light {
			termFg, termBg = termBg, termFg
		}
		for _, want := range []string{
			"<title>a &amp; b</title>",
			`<rect width="100%" height="100%" fill="` + termBg + `"/>`,
			`<rect x="8.0" y="8.0" width="42.0" height="18" fill="#5f5f87"/>`,
			`textLength="42.0" lengthAdjust="spacingAndGlyphs" fill="#eeeeee" font-weight="bold"> a&lt;b </text>`,
			// rev: reverse video of the defaults, after 5+6 columns.
			`<rect x="100.4" y="8.0" width="25.2" height="18" fill="` + termFg + `"/>`,
			`fill="` + termBg + `">rev</text>`,
		} {
			if !strings.Contains(out, want) {
				t.Errorf("light %v: no %s in\n%s", light, want, out)
			}
		}
		if n := strings.Count(out, "<text"); n != 2 {
			t.Errorf("light %v: %d text runs, want 2 (the spaces between are drawn by nothing)", light, n)
		}
	}
}
