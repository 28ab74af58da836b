package theme_test

import (
	"fmt"
	"image/color"
	"math"
	"testing"

	"charm.land/lipgloss/v2"

	"parley/internal/markdown"
	"parley/tui/theme"
)

// Every colour pair the screen draws, its replies' markdown and code highlighting included,
// meets WCAG's contrast on its background: 4.5:1, 3:1 for a dim mark.
func TestEveryPairIsLegible(t *testing.T) {
	t.Parallel()
	for _, dark := range []bool{true, false} {
		p := theme.For(dark)
		pairs := p.Pairs()
		for _, ink := range markdown.Inks(dark) {
			bg := ink.Bg
			if bg == nil {
				bg = p.Background
			}
			pairs = append(pairs, theme.Pair{Name: "markdown " + ink.Name, Fg: ink.Fg, Bg: bg, Dim: ink.Dim})
		}
		if len(pairs) < 40 {
			t.Fatalf("dark %v: only %d pairs measured; the markdown's were not all read", dark, len(pairs))
		}
		worst, at := 21.0, ""
		for _, pair := range pairs {
			c := theme.Contrast(pair.Fg, pair.Bg)
			if c < pair.Need() {
				t.Errorf("dark %v: %s: %s on %s is %.2f:1, want %.1f:1", dark, pair.Name, hex(pair.Fg), hex(pair.Bg), c, pair.Need())
			}
			if c < worst {
				worst, at = c, pair.Name
			}
		}
		t.Logf("dark %v: %d pairs, the lowest %.2f:1 (%s)", dark, len(pairs), worst, at)
	}
}

func hex(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}

// The ratio is WCAG's: its extremes, and the grey WebAIM gives as just passing on white.
func TestContrastIsWCAGs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want float64
	}{{"#000000", "#ffffff", 21}, {"#ffffff", "#000000", 21}, {"#777777", "#777777", 1}, {"#767676", "#ffffff", 4.54}, {"#0000ff", "#ffffff", 8.59}} {
		if got := theme.Contrast(lipgloss.Color(c.a), lipgloss.Color(c.b)); math.Abs(got-c.want) > 0.01 {
			t.Errorf("%s on %s: %.3f, want %.2f", c.a, c.b, got, c.want)
		}
	}
}

// COLORFGBG's last field is the background; 7 and 9 to 15 are light, and what is not a
// colour number says nothing.
func TestColorFGBG(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]struct{ dark, ok bool }{
		"0;15": {false, true}, "15;0": {true, true}, "0;7": {false, true}, "7;8": {true, true},
		"15;default;0": {true, true}, "0;default;15": {false, true}, "12;9": {false, true},
		"": {false, false}, "default;default": {false, false}, "0;16": {false, false}, "light": {false, false},
	} {
		if dark, ok := theme.DarkFromColorFGBG(v); dark != want.dark || ok != want.ok {
			t.Errorf("COLORFGBG=%q: dark %v ok %v, want dark %v ok %v", v, dark, ok, want.dark, want.ok)
		}
	}
}

// An explicit light or dark wins over the environment; auto takes COLORFGBG, else dark, and
// is the only choice the terminal's OSC 11 answer may change.
func TestChoice(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		setting, colorFGBG string
		dark, follows      bool
	}{
		{"", "", true, true}, {"auto", "0;15", false, true}, {"auto", "15;0", true, true}, {"Auto", "x", true, true},
		{"light", "15;0", false, false}, {"dark", "0;15", true, false}, {" LIGHT ", "", false, false},
	} {
		ch, err := theme.ParseChoice(c.setting)
		if err != nil {
			t.Fatalf("%q: %v", c.setting, err)
		}
		if got := theme.Initial(ch, c.colorFGBG); got != c.dark {
			t.Errorf("theme %q, COLORFGBG %q: dark %v, want %v", c.setting, c.colorFGBG, got, c.dark)
		}
		if got := theme.FollowsTerminal(ch); got != c.follows {
			t.Errorf("theme %q: follows the terminal %v, want %v", c.setting, got, c.follows)
		}
	}
	if _, err := theme.ParseChoice("solarized"); err == nil {
		t.Fatal("theme solarized was taken")
	}
}
