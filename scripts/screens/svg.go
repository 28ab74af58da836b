package main

import (
	"fmt"
	"strings"

	"parley/scripts/internal/pane"
)

// A cell's size in the picture, in px: a monospace font at 14px is about 0.6em wide. Each run
// of text is given its columns' width (textLength), so the grid holds in whatever monospace
// font the viewer has.
const (
	fontSize   = 14
	cellW      = 8.4
	cellH      = 18
	pad        = 8
	fontFamily = "ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', monospace"
)

// svg draws a capture-pane -e screen: the terminal's own colours (white on black, or black on
// white when light) where the screen left the default, a rect under every run of a background,
// and a text element for every run of glyphs in one style.
func svg(screen, title string, light bool) string {
	termFg, termBg := pane.Terminal(light)
	var rects, texts strings.Builder
	for row, line := range pane.Parse(screen) {
		if row >= height {
			break
		}
		y := pad + float64(row*cellH)
		col := 0
		for i := 0; i < len(line); {
			fg, bg := line[i].Colours(termFg, termBg)
			// The run: cells of one look. Its text is written unless every glyph is a space.
			j, cols, blank := i, 0, true
			var text strings.Builder
			for ; j < len(line); j++ {
				f, b := line[j].Colours(termFg, termBg)
				if f != fg || b != bg || line[j].Bold != line[i].Bold || line[j].Italic != line[i].Italic {
					break
				}
				text.WriteRune(line[j].Rune)
				cols += line[j].Width
				blank = blank && (line[j].Rune == ' ' || line[j].Rune == '\u00a0')
			}
			x := pad + float64(col)*cellW
			if bg != termBg {
				fmt.Fprintf(&rects, `<rect x="%.1f" y="%.1f" width="%.1f" height="%d" fill="%s"/>`+"\n", x, y, float64(cols)*cellW, cellH, bg)
			}
			if !blank {
				attrs := ""
				if line[i].Bold {
					attrs += ` font-weight="bold"`
				}
				if line[i].Italic {
					attrs += ` font-style="italic"`
				}
				fmt.Fprintf(&texts, `<text x="%.1f" y="%.1f" textLength="%.1f" lengthAdjust="spacingAndGlyphs" fill="%s"%s>%s</text>`+"\n",
					x, y+cellH*0.75, float64(cols)*cellW, fg, attrs, escape(text.String()))
			}
			col += cols
			i = j
		}
	}
	w, h := 2*pad+float64(width)*cellW, 2*pad+height*cellH
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%d" viewBox="0 0 %.0f %d" font-family="%s" font-size="%d" xml:space="preserve">`+"\n",
		w, h, w, h, fontFamily, fontSize)
	fmt.Fprintf(&b, "<title>%s</title>\n", escape(title))
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="%s"/>`+"\n", termBg)
	b.WriteString(rects.String())
	b.WriteString(texts.String())
	b.WriteString("</svg>\n")
	return b.String()
}

var escape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace
