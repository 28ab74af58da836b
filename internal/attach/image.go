package attach

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"

	"parley/internal/chat"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/webp"
)

// Image bounds: what an attached image may weigh as read, and the size it is sent at.
const (
	// DefaultMaxImageBytes is the largest image file read when config.toml sets no
	// max_image_bytes: a phone's photo fits.
	DefaultMaxImageBytes = 20 << 20
	// MaxImageSide is the longest side, in pixels, an image is sent with: a larger one is
	// scaled down first. Vision models look at images at about this size or less (OpenAI
	// scales anything larger to fit 2048×2048), so the pixels beyond it only cost bytes.
	MaxImageSide = 2048
)

// Image is an image read for attaching, ready to send.
type Image struct {
	chat.Image
	// ScaledFrom is the size of the image as read, when it was scaled down to be sent; zero
	// otherwise.
	ScaledFrom image.Point
}

// Chip is an image as one line of the transcript: "▣ photo.png · 1024×768 · 212.0 KiB".
func Chip(im chat.Image) string {
	return fmt.Sprintf("▣ %s · %d×%d · %s", im.Name, im.Width, im.Height, Size(im.Bytes))
}

// Scaled says how an image scaled down to be sent was changed, or "" when it was not.
func (im Image) Scaled() string {
	if im.ScaledFrom == (image.Point{}) {
		return ""
	}
	return fmt.Sprintf("%s: scaled down from %d×%d to %d×%d to send", im.Name, im.ScaledFrom.X, im.ScaledFrom.Y, im.Width, im.Height)
}

// ImageType returns the MIME type of the image b holds, read from its first bytes (never from
// a name's extension), and false when b is none of the formats parley sends.
func ImageType(b []byte) (string, bool) {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png", true
	case bytes.HasPrefix(b, []byte{0xff, 0xd8, 0xff}):
		return "image/jpeg", true
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return "image/gif", true
	case len(b) >= 12 && bytes.HasPrefix(b, []byte("RIFF")) && string(b[8:12]) == "WEBP":
		return "image/webp", true
	}
	return "", false
}

// PrepareImage makes the image bytes b, named name, ready to send: read for its size, and
// scaled down to MaxImageSide when it is larger (re-encoded as PNG when it holds transparency,
// else as JPEG). Bytes that are no image parley sends, or that do not decode, or
// that weigh more than limit, are refused with an *Error.
func PrepareImage(name string, b []byte, limit int64) (Image, error) {
	if _, ok := ImageType(b); ok && int64(len(b)) > limit {
		return Image{}, imageTooLarge(name, int64(len(b)), limit)
	}
	im, err := Inspect(name, b)
	if err != nil {
		return Image{}, err
	}
	if max(im.Width, im.Height) <= MaxImageSide {
		return Image{Image: im}, nil
	}
	return scaleDown(im)
}

// Inspect reads what the image bytes b, named name, are: their type, from the bytes, and their
// size in pixels. Bytes that are no image parley sends, or that do not decode, are refused with
// an *Error.
func Inspect(name string, b []byte) (chat.Image, error) {
	mime, ok := ImageType(b)
	if !ok {
		return chat.Image{}, &Error{name, binaryReason}
	}
	cfg, err := codecs[mime].config(bytes.NewReader(b))
	if err != nil {
		return chat.Image{}, &Error{name, "it looks like an image but does not decode: " + err.Error()}
	}
	return chat.NewImage(name, mime, b, cfg.Width, cfg.Height), nil
}

// codecs reads each image type parley takes. GIF's Decode gives the first frame: a model sees
// one picture.
var codecs = map[string]struct {
	config func(io.Reader) (image.Config, error)
	decode func(io.Reader) (image.Image, error)
}{
	"image/png":  {png.DecodeConfig, png.Decode},
	"image/jpeg": {jpeg.DecodeConfig, jpeg.Decode},
	"image/gif":  {gif.DecodeConfig, gif.Decode},
	"image/webp": {webp.DecodeConfig, webp.Decode},
}

// scaleDown scales im so that its longer side is MaxImageSide.
func scaleDown(im chat.Image) (Image, error) {
	src, err := codecs[im.MIME].decode(bytes.NewReader(im.Data))
	if err != nil {
		return Image{}, &Error{im.Name, "it looks like an image but does not decode: " + err.Error()}
	}
	w, h := im.Width, im.Height
	if w >= h {
		w, h = MaxImageSide, max(1, h*MaxImageSide/w)
	} else {
		w, h = max(1, w*MaxImageSide/h), MaxImageSide
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	xdraw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
	var buf bytes.Buffer
	// A picture without transparency is sent as JPEG whatever it came as: a scaled photo
	// stays a few hundred KB, where PNG would keep megabytes.
	mime := "image/jpeg"
	if opaque(src) {
		err = jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 85})
	} else {
		mime = "image/png"
		err = png.Encode(&buf, dst)
	}
	if err != nil {
		return Image{}, &Error{im.Name, "scaling it down failed: " + err.Error()}
	}
	return Image{Image: chat.NewImage(im.Name, mime, buf.Bytes(), w, h), ScaledFrom: image.Pt(im.Width, im.Height)}, nil
}

// opaque reports whether img has no transparency to keep.
func opaque(img image.Image) bool {
	o, ok := img.(interface{ Opaque() bool })
	return ok && o.Opaque()
}
