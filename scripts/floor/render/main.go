// Command render is the floor for markdown: it renders a whole reply once with glamour, as
// parley's screen does (same style, same wrap width), and writes the result to stdout, so
// scripts/bench.sh can set parley's cost beside one render of the final text.
//
//	go run ./scripts/floor/render --width 98 < reply.md > /dev/null
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"charm.land/glamour/v2"
)

func main() {
	width := flag.Int("width", 78, "wrap width in columns")
	flag.Parse()
	text, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "render:", err)
		os.Exit(1)
	}
	r, err := glamour.NewTermRenderer(glamour.WithStandardStyle("dark"), glamour.WithWordWrap(*width))
	if err != nil {
		fmt.Fprintln(os.Stderr, "render:", err)
		os.Exit(1)
	}
	out, err := r.RenderBytes(text)
	if err != nil {
		fmt.Fprintln(os.Stderr, "render:", err)
		os.Exit(1)
	}
	os.Stdout.Write(out)
}
