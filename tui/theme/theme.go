// Package theme holds the chat screen's two palettes, one for a dark terminal background and
// one for a light, and the choice between them: the operator's setting, else what the terminal
// says of its background (OSC 11's answer, else COLORFGBG), else dark. Every colour is one of
// the xterm 256-colour cube or grey ramp, so a terminal that has only 256 colours shows it
// unchanged and its contrast is what the tests measure.
package theme

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
)

// Choice is config.toml's theme and --theme: which palette to draw with.
type Choice string

// The choices. Auto follows the terminal's background.
const (
	Auto  Choice = "auto"
	Light Choice = "light"
	Dark  Choice = "dark"
)

// ParseChoice reads a theme setting; "" is Auto.
func ParseChoice(s string) (Choice, error) {
	switch c := Choice(strings.ToLower(strings.TrimSpace(s))); c {
	case "", Auto:
		return Auto, nil
	case Light, Dark:
		return c, nil
	}
	return "", fmt.Errorf("theme is %q; use light, dark or auto", s)
}

// Initial reports whether the screen starts dark: an explicit light or dark is kept, and auto
// takes COLORFGBG's background until the terminal answers OSC 11 (FollowsTerminal), dark when
// COLORFGBG says nothing.
func Initial(c Choice, colorFGBG string) bool {
	switch c {
	case Light:
		return false
	case Dark:
		return true
	}
	if dark, ok := DarkFromColorFGBG(colorFGBG); ok {
		return dark
	}
	return true
}

// FollowsTerminal reports whether the terminal's answer to OSC 11 decides the palette: only
// when the operator chose none.
func FollowsTerminal(c Choice) bool { return c != Light && c != Dark }

// DarkFromColorFGBG reads the background of COLORFGBG ("0;15", "15;default;0": its last field
// is the background's colour number), set by rxvt, Konsole and others. Of the 16 colours, 7
// (white) and 9 to 15 (the bright ones but black's) are light backgrounds. ok is false when
// the variable says nothing usable.
func DarkFromColorFGBG(v string) (dark, ok bool) {
	if v == "" {
		return false, false
	}
	last := v[strings.LastIndexByte(v, ';')+1:]
	n, err := strconv.Atoi(last)
	if err != nil || n < 0 || n > 15 {
		return false, false
	}
	return !(n == 7 || n >= 9), true
}

// Palette is every colour the screen draws with on one background.
type Palette struct {
	// Dark is set for the palette of a dark background.
	Dark bool
	// Background is the terminal background the palette is measured against: white or black.
	Background color.Color
	// Text is body text where the screen sets a colour for it (the input's cursor, selected
	// text).
	Text color.Color
	// Accent marks the assistant: its label, the selected reply's gutter, the picker's focus.
	Accent color.Color
	// User marks the operator: the "You" label and the input bar's ┃.
	User color.Color
	// Muted is every secondary line: model names, hints, notes, the status line, code labels.
	Muted color.Color
	// Error and Warn are a failed and an interrupted reply.
	Error, Warn color.Color
	// BarFg on BarBg is the header.
	BarFg, BarBg color.Color
	// BadgeFg on BadgeBg is the header's "demo" badge.
	BadgeFg, BadgeBg color.Color
	// OnAccent is text on an Accent background (the selection bar, the chosen answer).
	OnAccent color.Color
	// SelectionBg is the input's selected text, in Text.
	SelectionBg color.Color
	// Key, KeyDesc and KeySep are the footer's keys, their words and the dots between them.
	Key, KeyDesc, KeySep color.Color
}

// For returns the palette of a dark or a light background.
func For(dark bool) Palette {
	if dark {
		return Palette{
			Dark:        true,
			Background:  lipgloss.Color("#000000"),
			Text:        lipgloss.Color("#eeeeee"), // 255
			Accent:      lipgloss.Color("#af87ff"), // 141
			User:        lipgloss.Color("#5fd7ff"), // 81
			Muted:       lipgloss.Color("#8a8a8a"), // 245
			Error:       lipgloss.Color("#ff5f5f"), // 203
			Warn:        lipgloss.Color("#ffd75f"), // 221
			BarFg:       lipgloss.Color("#eeeeee"), // 255
			BarBg:       lipgloss.Color("#5f5f87"), // 60
			BadgeFg:     lipgloss.Color("#1c1c1c"), // 234
			BadgeBg:     lipgloss.Color("#ffd75f"), // 221
			OnAccent:    lipgloss.Color("#1c1c1c"), // 234
			SelectionBg: lipgloss.Color("#4e4e4e"), // 239
			Key:         lipgloss.Color("#b2b2b2"), // 249
			KeyDesc:     lipgloss.Color("#8a8a8a"), // 245
			KeySep:      lipgloss.Color("#626262"), // 241
		}
	}
	return Palette{
		Background:  lipgloss.Color("#ffffff"),
		Text:        lipgloss.Color("#1c1c1c"), // 234
		Accent:      lipgloss.Color("#5f00af"), // 55
		User:        lipgloss.Color("#005f87"), // 24
		Muted:       lipgloss.Color("#626262"), // 241
		Error:       lipgloss.Color("#af0000"), // 124
		Warn:        lipgloss.Color("#875f00"), // 94
		BarFg:       lipgloss.Color("#1c1c1c"), // 234
		BarBg:       lipgloss.Color("#d7d7ff"), // 189
		BadgeFg:     lipgloss.Color("#1c1c1c"), // 234
		BadgeBg:     lipgloss.Color("#ffd75f"), // 221
		OnAccent:    lipgloss.Color("#eeeeee"), // 255
		SelectionBg: lipgloss.Color("#d0d0d0"), // 252
		Key:         lipgloss.Color("#3a3a3a"), // 237
		KeyDesc:     lipgloss.Color("#626262"), // 241
		KeySep:      lipgloss.Color("#8a8a8a"), // 245
	}
}

// Pair is a foreground drawn on a background, as the screen draws it.
type Pair struct {
	Name   string
	Fg, Bg color.Color
	// Dim is set for a hint meant to recede: it needs 3:1, not 4.5:1.
	Dim bool
}

// Pairs returns every foreground/background pair the screen draws with this palette; a colour
// drawn on no background of its own is paired with the terminal's.
func (p Palette) Pairs() []Pair {
	bg := p.Background
	return []Pair{
		{Name: "text", Fg: p.Text, Bg: bg},
		{Name: "accent", Fg: p.Accent, Bg: bg},
		{Name: "user", Fg: p.User, Bg: bg},
		{Name: "muted", Fg: p.Muted, Bg: bg},
		{Name: "error", Fg: p.Error, Bg: bg},
		{Name: "warn", Fg: p.Warn, Bg: bg},
		{Name: "header", Fg: p.BarFg, Bg: p.BarBg},
		{Name: "demo badge", Fg: p.BadgeFg, Bg: p.BadgeBg},
		{Name: "on accent", Fg: p.OnAccent, Bg: p.Accent},
		{Name: "selection", Fg: p.Text, Bg: p.SelectionBg},
		{Name: "footer key", Fg: p.Key, Bg: bg},
		{Name: "footer text", Fg: p.KeyDesc, Bg: bg},
		{Name: "footer separator", Fg: p.KeySep, Bg: bg, Dim: true},
	}
}

// The contrast a pair needs: text 4.5:1 (WCAG AA), a dim hint 3:1.
const (
	MinText = 4.5
	MinDim  = 3.0
)

// Need is the contrast p needs.
func (p Pair) Need() float64 {
	if p.Dim {
		return MinDim
	}
	return MinText
}

// Contrast is WCAG 2's contrast ratio of two colours, from 1 (none) to 21 (black on white).
func Contrast(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// luminance is WCAG 2's relative luminance of c.
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	return 0.2126*linear(r) + 0.7152*linear(g) + 0.0722*linear(b)
}

// linear is one sRGB channel (0..0xffff) in linear light.
func linear(v uint32) float64 {
	s := float64(v) / 0xffff
	if s <= 0.04045 {
		return s / 12.92
	}
	return math.Pow((s+0.055)/1.055, 2.4)
}
