package markdown

import (
	"image/color"
	"reflect"
	"sync"

	"charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"
	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
	chromastyles "github.com/alecthomas/chroma/v2/styles"
)

// This file holds the colours replies are drawn in: glamour's dark and light styles with the
// colours that were too faint on their background replaced, and a code highlighting style for
// each background. Every colour is of the xterm 256-colour cube or grey ramp, which both
// glamour's and chroma's 256-colour output keep exact, so that what the contrast test
// measures is what the terminal shows.

// The chroma styles code blocks are highlighted with. glamour registers the style of its own
// config under one global name, so the first background rendered would colour every later
// code block (light code in dark colours): each background's style is registered under its
// own name instead, and named in the config.
const (
	chromaDark  = "parley-dark"
	chromaLight = "parley-light"
)

// codeColors are the chroma styles' entries, dark and light.
var codeColors = map[bool]chroma.StyleEntries{
	true: {
		chroma.Text:                "#d0d0d0",
		chroma.Error:               "#ff5f5f",
		chroma.Comment:             "#8a8a8a",
		chroma.CommentPreproc:      "#ff875f",
		chroma.Keyword:             "#5fafff",
		chroma.KeywordReserved:     "#ff87d7",
		chroma.KeywordNamespace:    "#ff5f87",
		chroma.KeywordType:         "#8787ff",
		chroma.Operator:            "#ff8787",
		chroma.Punctuation:         "#d7d7af",
		chroma.Name:                "#d0d0d0",
		chroma.NameBuiltin:         "#ff87d7",
		chroma.NameTag:             "#af87ff",
		chroma.NameAttribute:       "#8787ff",
		chroma.NameClass:           "underline bold #eeeeee",
		chroma.NameDecorator:       "#ffff87",
		chroma.NameFunction:        "#00d787",
		chroma.LiteralNumber:       "#5fffd7",
		chroma.LiteralString:       "#d7875f",
		chroma.LiteralStringEscape: "#afffd7",
		chroma.GenericDeleted:      "#ff5f5f",
		chroma.GenericEmph:         "italic",
		chroma.GenericInserted:     "#00d787",
		chroma.GenericStrong:       "bold",
		chroma.GenericSubheading:   "#8a8a8a",
	},
	false: {
		chroma.Text:                "#262626",
		chroma.Error:               "#af0000",
		chroma.Comment:             "#6c6c6c",
		chroma.CommentPreproc:      "#af5f00",
		chroma.Keyword:             "#005faf",
		chroma.KeywordReserved:     "#af0087",
		chroma.KeywordNamespace:    "#af005f",
		chroma.KeywordType:         "#5f00d7",
		chroma.Operator:            "#870000",
		chroma.Punctuation:         "#444444",
		chroma.Name:                "#262626",
		chroma.NameBuiltin:         "#870087",
		chroma.NameTag:             "#5f00af",
		chroma.NameAttribute:       "#5f5faf",
		chroma.NameClass:           "underline bold #1c1c1c",
		chroma.NameDecorator:       "#875f00",
		chroma.NameFunction:        "#005f00",
		chroma.LiteralNumber:       "#005f5f",
		chroma.LiteralString:       "#875f5f",
		chroma.LiteralStringEscape: "#005f87",
		chroma.GenericDeleted:      "#af0000",
		chroma.GenericEmph:         "italic",
		chroma.GenericInserted:     "#005f00",
		chroma.GenericStrong:       "bold",
		chroma.GenericSubheading:   "#626262",
	},
}

// frameColor draws a code block's frame, its language and the mark of a continued line.
func frameColor(dark bool) color.Color {
	if dark {
		return lipgloss.Color("245")
	}
	return lipgloss.Color("241")
}

var registerChroma sync.Once

// chromaStyle returns the chroma style of a background, registered with chroma.
func chromaStyle(dark bool) *chroma.Style {
	registerChroma.Do(func() {
		chromastyles.Register(chroma.MustNewStyle(chromaDark, codeColors[true]))
		chromastyles.Register(chroma.MustNewStyle(chromaLight, codeColors[false]))
	})
	if dark {
		return chromastyles.Get(chromaDark)
	}
	return chromastyles.Get(chromaLight)
}

// styleConfig is glamour's style for a background with parley's colours.
func styleConfig(dark bool) ansi.StyleConfig {
	var s ansi.StyleConfig
	name := chromaLight
	if dark {
		s, name = styles.DarkStyleConfig, chromaDark
		s.HorizontalRule.Color = ptr("241")
		s.Code.Color, s.Code.BackgroundColor = ptr("203"), ptr("235")
		s.CodeBlock.Color = ptr("245")
	} else {
		// Glamour's light colours that are too faint on white, and its inline code's.
		s = styles.LightStyleConfig
		s.HorizontalRule.Color = ptr("245")
		s.Link.Color = ptr("24")
		s.LinkText.Color = ptr("22")
		s.Image.Color = ptr("125")
		s.Code.Color, s.Code.BackgroundColor = ptr("124"), ptr("254")
		s.CodeBlock.Color = ptr("241")
	}
	s.H1.BackgroundColor = ptr("61")
	chromaStyle(dark)
	s.CodeBlock.Chroma, s.CodeBlock.Theme = nil, name
	return s
}

func ptr[T any](v T) *T { return &v }

// Ink is a colour replies are drawn in, on its background: Bg is nil where the terminal's
// own shows through. Dim inks are marks meant to recede (a rule, a frame).
type Ink struct {
	Name   string
	Fg, Bg color.Color
	Dim    bool
}

// Inks returns every colour a reply on a dark or light background is drawn in: the style's
// elements (text in the document's colour where an element sets a background alone), the code
// highlighting's tokens, the frame of code blocks.
func Inks(dark bool) []Ink {
	s := styleConfig(dark)
	text := lipgloss.Color(*s.Document.Color)
	var inks []Ink
	walkPrimitives(reflect.ValueOf(s), "", func(name string, p ansi.StylePrimitive) {
		if p.Color == nil && p.BackgroundColor == nil {
			return
		}
		ink := Ink{Name: name, Fg: text}
		if p.Color != nil {
			ink.Fg = lipgloss.Color(*p.Color)
		}
		if p.BackgroundColor != nil {
			ink.Bg = lipgloss.Color(*p.BackgroundColor)
		}
		ink.Dim = name == "HorizontalRule" || name == "CodeBlock"
		inks = append(inks, ink)
	})
	cs := chromaStyle(dark)
	for _, t := range cs.Types() {
		e := cs.Get(t)
		if !e.Colour.IsSet() {
			continue
		}
		ink := Ink{Name: "code " + t.String(), Fg: rgb(e.Colour)}
		if e.Background.IsSet() {
			ink.Bg = rgb(e.Background)
		}
		inks = append(inks, ink)
	}
	return append(inks, Ink{Name: "code frame", Fg: frameColor(dark)})
}

// walkPrimitives calls f with every StylePrimitive in v, named by its path.
func walkPrimitives(v reflect.Value, name string, f func(string, ansi.StylePrimitive)) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return
	}
	if p, ok := v.Interface().(ansi.StylePrimitive); ok {
		f(name, p)
		return
	}
	for i := range v.NumField() {
		field := v.Type().Field(i)
		n := field.Name
		if field.Anonymous {
			n = name
		} else if name != "" {
			n = name + "." + n
		}
		walkPrimitives(v.Field(i), n, f)
	}
}

func rgb(c chroma.Colour) color.Color {
	return color.RGBA{R: c.Red(), G: c.Green(), B: c.Blue(), A: 0xff}
}
