package chat

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
)

// Image is an image in an operator message, as it is sent to the model and stored: once per
// content, by Hash, however many messages carry it.
type Image struct {
	// Hash is the SHA-256 of Data, in hex.
	Hash string `json:"sha256"`
	// Name is what the operator attached it as (a path's base name, "clipboard", "stdin").
	Name string `json:"name"`
	// MIME is Data's type: image/png, image/jpeg, image/webp or image/gif.
	MIME string `json:"mime"`
	// Width and Height are its size in pixels; Bytes is len(Data).
	Width  int   `json:"width"`
	Height int   `json:"height"`
	Bytes  int64 `json:"bytes"`
	// Data is the image as sent. It is nil where only what the image is was read (a
	// transcript shows the image's chip, never its bytes).
	Data []byte `json:"-"`
}

// NewImage is the image data of type mime, width×height pixels, named name.
func NewImage(name, mime string, data []byte, width, height int) Image {
	sum := sha256.Sum256(data)
	return Image{Hash: hex.EncodeToString(sum[:]), Name: name, MIME: mime, Width: width, Height: height,
		Bytes: int64(len(data)), Data: data}
}

// DataURI is the image as an OpenAI image_url carries it.
func (im Image) DataURI() string {
	return "data:" + im.MIME + ";base64," + base64.StdEncoding.EncodeToString(im.Data)
}
