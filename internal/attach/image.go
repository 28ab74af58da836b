package attach

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"

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

// Image is an image read for attaching, ready to send: Data is what goes to the model.
type Image struct {
	// Name is the image's name as the operator gave it (a path), or what it came from
	// ("clipboard", "stdin").
	Name string
	// MIME is Data's type: image/png, image/jpeg, image/webp or image/gif.
	MIME string
	Data []byte
	// Width and Height are Data's size in pixels.
	Width, Height int
	// ScaledFrom is the size of the image as read, when it was scaled down to be sent; zero
	// otherwise.
	ScaledFrom image.Point
}

// Hash is the image's content hash, by which it is stored once however often it is sent.
func (im Image) Hash() string {
	sum := sha256.Sum256(im.Data)
	return hex.EncodeToString(sum[:])
}

// Chip is the image as one line of the transcript: "▣ photo.png · 1024×768 · 212 KB".
func (im Image) Chip() string {
	return fmt.Sprintf("▣ %s · %d×%d · %s", im.Name, im.Width, im.Height, Size(int64(len(im.Data))))
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
	mime, ok := ImageType(b)
	if !ok {
		return Image{}, &Error{name, "it is binary, not text or an image parley sends (PNG, JPEG, WebP, GIF)"}
	}
	if int64(len(b)) > limit {
		return Image{}, &Error{name, fmt.Sprintf("%s is over the %s image limit; raise max_image_bytes in config.toml to attach it",
			Size(int64(len(b))), Size(limit))}
	}
	cfg, err := codecs[mime].config(bytes.NewReader(b))
	if err != nil {
		return Image{}, &Error{name, "it looks like an image but does not decode: " + err.Error()}
	}
	im := Image{Name: name, MIME: mime, Data: b, Width: cfg.Width, Height: cfg.Height}
	if max(cfg.Width, cfg.Height) <= MaxImageSide {
		return im, nil
	}
	return scaleDown(im)
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
func scaleDown(im Image) (Image, error) {
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
	return Image{Name: im.Name, MIME: mime, Data: buf.Bytes(), Width: w, Height: h,
		ScaledFrom: image.Pt(im.Width, im.Height)}, nil
}

// opaque reports whether img has no transparency to keep.
func opaque(img image.Image) bool {
	o, ok := img.(interface{ Opaque() bool })
	return ok && o.Opaque()
}
