package e2e

import (
	"bytes"
	byteorder "encoding/binary"
	"image"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// A photo of 20 MB, as a camera writes one, is scaled down by the binary before it is sent,
// and the line on stderr says so. (Here in e2e because scaling it under -race in-process
// takes many times what it takes parley.)
func TestTwentyMegabytePhotoIsScaledDown(t *testing.T) {
	t.Parallel()
	u := newUser(t)
	srv := demotest.Start(t, demo.Options{})
	// Noise does not compress, and PNG without compression is quick to write: 3000×2230 of
	// it is 20.1 MB, under the 20 MiB limit. Two opaque pixels a draw: under the race
	// detector a draw and a store a byte took seconds.
	img := image.NewRGBA(image.Rect(0, 0, 3000, 2230))
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < len(img.Pix); i += 8 {
		byteorder.LittleEndian.PutUint64(img.Pix[i:], rng.Uint64()|0xff000000_ff000000) // alpha is every fourth byte
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.NoCompression}).Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	photo := filepath.Join(t.TempDir(), "DSC_0042.png")
	if err := os.WriteFile(photo, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if buf.Len() < 20e6 {
		t.Fatalf("the photo is %d bytes, not 20 MB", buf.Len())
	}
	r := u.run("-p", "what is in this photo?", "-f", photo, "--base-url", srv.URL(), "--model", "m")
	if r.code != 0 || !strings.Contains(r.stderr, "parley: DSC_0042.png: scaled down from 3000×2230 to 2048×1522 to send") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	sent := srv.Received()[0].Messages[0].Images
	if len(sent) != 1 || sent[0].Width != 2048 || sent[0].Height != 1522 || sent[0].MIME != "image/jpeg" || sent[0].Bytes > 2<<20 {
		t.Fatalf("sent %+v", sent)
	}
	t.Logf("%d bytes read, %d sent", buf.Len(), sent[0].Bytes)
}
