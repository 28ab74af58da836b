// Package pane reads what tmux's capture-pane -e prints: each line's cells with the colours
// and attributes its SGR sequences gave them, as the scripts that measure and draw the chat
// screen see it.
package pane

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Style is the SGR state a cell is drawn in; a colour "" is the terminal's default.
type Style struct {
	FG, BG                string // "#rrggbb"
	Bold, Italic, Reverse bool
}

// Terminal is the terminal's own colours the scripts run the screen in: white on black, or
// black on white when light.
func Terminal(light bool) (fg, bg string) {
	if light {
		return "#000000", "#ffffff"
	}
	return "#ffffff", "#000000"
}

// Colours is what a cell in st is drawn in on a terminal whose own colours are termFg and
// termBg: the defaults filled in and reverse applied.
func (st Style) Colours(termFg, termBg string) (fg, bg string) {
	fg, bg = st.FG, st.BG
	if fg == "" {
		fg = termFg
	}
	if bg == "" {
		bg = termBg
	}
	if st.Reverse {
		fg, bg = bg, fg
	}
	return fg, bg
}

// Cell is one glyph of a line and the style it is drawn in; Width is the columns it takes.
type Cell struct {
	Rune  rune
	Width int
	Style
}

// Parse returns the cells of each line of a capture-pane -e screen. Escape sequences other
// than SGR are dropped.
func Parse(screen string) [][]Cell {
	var lines [][]Cell
	var st Style // capture-pane -e writes only what changed since the cell before, across lines
	for _, line := range strings.Split(strings.TrimSuffix(screen, "\n"), "\n") {
		var cells []Cell
		for i := 0; i < len(line); {
			if line[i] == 0x1b && i+1 < len(line) && line[i+1] == '[' {
				j := i + 2
				for j < len(line) && (line[j] < 0x40 || line[j] > 0x7e) {
					j++
				}
				if j < len(line) && line[j] == 'm' {
					st.Apply(line[i+2 : j])
				}
				i = j + 1
				continue
			}
			r, size := utf8.DecodeRuneInString(line[i:])
			i += size
			w := ansi.StringWidth(string(r))
			if w == 0 {
				w = 1
			}
			cells = append(cells, Cell{Rune: r, Width: w, Style: st})
		}
		lines = append(lines, cells)
	}
	return lines
}

// Apply takes one SGR sequence's parameters (what stands between "ESC [" and "m").
func (s *Style) Apply(params string) {
	if params == "" {
		*s = Style{}
		return
	}
	ps := strings.Split(params, ";")
	for k := 0; k < len(ps); k++ {
		n, _ := strconv.Atoi(ps[k])
		switch {
		case n == 0:
			*s = Style{}
		case n == 1:
			s.Bold = true
		case n == 22:
			s.Bold = false
		case n == 3:
			s.Italic = true
		case n == 23:
			s.Italic = false
		case n == 7:
			s.Reverse = true
		case n == 27:
			s.Reverse = false
		case n >= 30 && n <= 37:
			s.FG = Indexed(n - 30)
		case n >= 90 && n <= 97:
			s.FG = Indexed(n - 90 + 8)
		case n >= 40 && n <= 47:
			s.BG = Indexed(n - 40)
		case n >= 100 && n <= 107:
			s.BG = Indexed(n - 100 + 8)
		case n == 39:
			s.FG = ""
		case n == 49:
			s.BG = ""
		case n == 38 || n == 48:
			var c string
			if k+2 < len(ps) && ps[k+1] == "5" {
				i, _ := strconv.Atoi(ps[k+2])
				c, k = Indexed(i), k+2
			} else if k+4 < len(ps) && ps[k+1] == "2" {
				r, _ := strconv.Atoi(ps[k+2])
				g, _ := strconv.Atoi(ps[k+3])
				b, _ := strconv.Atoi(ps[k+4])
				c, k = fmt.Sprintf("#%02x%02x%02x", r, g, b), k+4
			}
			if n == 38 {
				s.FG = c
			} else {
				s.BG = c
			}
		}
	}
}

// basic are xterm's 16 colours.
var basic = [16]string{"#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
	"#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff"}

// Indexed is xterm's colour number i as "#rrggbb".
func Indexed(i int) string {
	switch {
	case i < 16:
		return basic[i]
	case i < 232:
		i -= 16
		step := func(v int) int {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return fmt.Sprintf("#%02x%02x%02x", step(i/36), step(i/6%6), step(i%6))
	default:
		v := 8 + 10*(i-232)
		return fmt.Sprintf("#%02x%02x%02x", v, v, v)
	}
}
