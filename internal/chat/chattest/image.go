package chattest

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// PNG returns a w×h PNG of a gradient: the bytes of a real picture's file, as attach reads
// them.
func PNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetNRGBA(x, y, color.NRGBA{uint8(x), uint8(y), 128, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// WritePNG writes a w×h PNG (PNG) named name into dir, and returns its path and bytes.
func WritePNG(t testing.TB, dir, name string, w, h int) (string, []byte) {
	t.Helper()
	b := PNG(t, w, h)
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p, b
}
