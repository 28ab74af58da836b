package attach_test

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"parley/internal/attach"
)

// picture is a w×h image with a gradient, so that encoders cannot shrink it to nothing.
func picture(w, h int, alpha bool) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			a := uint8(255)
			if alpha && x < w/4 {
				a = 0
			}
			img.SetNRGBA(x, y, color.NRGBA{uint8(x), uint8(y), uint8(x ^ y), a})
		}
	}
	return img
}

func encode(t *testing.T, format string, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	var err error
	switch format {
	case "png":
		err = png.Encode(&buf, img)
	case "jpeg":
		err = jpeg.Encode(&buf, img, nil)
	case "gif":
		err = gif.Encode(&buf, img, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// webpLossless is a 1×1 lossless WebP (an opaque pixel), as cwebp writes one.
var webpLossless = []byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00")

func TestImageTypeIsReadFromTheBytes(t *testing.T) {
	for want, b := range map[string][]byte{
		"image/png":  encode(t, "png", picture(4, 4, false)),
		"image/jpeg": encode(t, "jpeg", picture(4, 4, false)),
		"image/gif":  encode(t, "gif", picture(4, 4, false)),
		"image/webp": webpLossless,
	} {
		if got, ok := attach.ImageType(b); !ok || got != want {
			t.Errorf("%s: got %q %v", want, got, ok)
		}
	}
	for _, b := range [][]byte{[]byte("hello"), []byte("\x00\x01\x02"), []byte("RIFF\x00\x00\x00\x00WAVEfmt ")} {
		if got, ok := attach.ImageType(b); ok {
			t.Errorf("%q taken for %s", b, got)
		}
	}
}

func TestPrepareImageKeepsASmallOne(t *testing.T) {
	b := encode(t, "png", picture(640, 480, false))
	im, err := attach.PrepareImage("shot.png", b, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(im.Data, b) || im.MIME != "image/png" || im.Width != 640 || im.Height != 480 || im.ScaledFrom != (image.Point{}) {
		t.Errorf("a small image must go as it is: %s %dx%d scaled from %v", im.MIME, im.Width, im.Height, im.ScaledFrom)
	}
	if chip := attach.Chip(im.Image); !strings.HasPrefix(chip, "▣ shot.png · 640×480 · ") {
		t.Errorf("chip %q", chip)
	}
	w, err := attach.PrepareImage("pixel.webp", webpLossless, 1<<20)
	if err != nil || w.Width != 1 || w.Height != 1 || w.MIME != "image/webp" {
		t.Errorf("webp: %+v %v", w, err)
	}
}

func TestPrepareImageScalesALargeOneDown(t *testing.T) {
	for _, tc := range []struct {
		format string
		alpha  bool
		mime   string
	}{{"jpeg", false, "image/jpeg"}, {"png", false, "image/jpeg"}, {"png", true, "image/png"}} {
		b := encode(t, tc.format, picture(4096, 128, tc.alpha))
		im, err := attach.PrepareImage("wide."+tc.format, b, 64<<20)
		if err != nil {
			t.Fatal(err)
		}
		if im.Width != attach.MaxImageSide || im.Height != 64 || im.ScaledFrom != image.Pt(4096, 128) || im.MIME != tc.mime {
			t.Errorf("%s alpha=%v: %s %dx%d from %v", tc.format, tc.alpha, im.MIME, im.Width, im.Height, im.ScaledFrom)
		}
		cfg, format, err := image.DecodeConfig(bytes.NewReader(im.Data))
		if err != nil || cfg.Width != im.Width || cfg.Height != im.Height || "image/"+format != im.MIME {
			t.Errorf("%s: the bytes sent are %s %dx%d (%v)", tc.format, format, cfg.Width, cfg.Height, err)
		}
	}
}

func TestPrepareImageRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		b            []byte
		limit        int64
	}{
		{"notes.bin", "it is binary, not text or an image parley sends (PNG, JPEG, WebP, GIF)", []byte("\x00\x01binary"), 1 << 20},
		{"big.png", "over the 1000 B image limit; raise max_image_bytes in config.toml to attach it", encode(t, "png", picture(256, 256, false)), 1000},
		{"cut.png", "it looks like an image but does not decode", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"), 1 << 20},
	} {
		_, err := attach.PrepareImage(tc.name, tc.b, tc.limit)
		var ae *attach.Error
		if !errors.As(err, &ae) || ae.Name != tc.name || !strings.Contains(ae.Reason, tc.reason) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.reason)
		}
	}
}
