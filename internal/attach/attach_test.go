package attach_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"parley/internal/attach"
)

func TestComposeOrdersPromptPipeAndFiles(t *testing.T) {
	got := attach.Compose("say the word", "ZEBRA\n", []attach.File{
		{Path: "notes/a.go", Text: "package a\n"},
		{Path: "odd name", Text: "has ``` inside"},
	})
	want := "say the word\n\nZEBRA\n\nnotes/a.go\n```go\npackage a\n```\n\nodd name\n````\nhas ``` inside\n````"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if got := attach.Compose("just this", "", nil); got != "just this" {
		t.Fatalf("prompt alone: %q", got)
	}
}

// binary is the refusal of a file that is neither text nor an image.
const binary = "it is binary, not text or an image parley sends (PNG, JPEG, WebP, GIF)"

func TestReadRefusesWhatCannotBeSent(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	text := write("ok.txt", []byte("héllo\n"))
	if f, err := attach.Read(text, attach.Limits{Text: 100, Image: 100}); err != nil || f.Text != "héllo\n" || f.Path != text {
		t.Fatalf("text file: %+v, %v", f, err)
	}
	rows := []struct {
		name, path, reason string
	}{
		{"missing", filepath.Join(dir, "nope.txt"), "no such file; check the path"},
		{"directory", dir, "it is a directory; attach the files in it one by one"},
		{"NUL byte", write("a.out", []byte("\x7fELF\x02\x01\x01\x00\x00")), binary},
		{"invalid UTF-8", write("latin1.txt", []byte("caf\xe9")), binary},
		{"a cut image", write("img.png", []byte("\x89PNG\r\n\x1a\n\x00\x00")), "it looks like an image but does not decode: unexpected EOF"},
		{"an image over its limit", write("shot.png", bytes.Repeat([]byte("\x89PNG\r\n\x1a\n"), 300)), "2.3 KiB is over the 2.0 KiB image limit; raise max_image_bytes in config.toml to attach it"},
		{"over the limit", write("big.log", []byte(strings.Repeat("x", 2000))), "2.0 KiB is over the 1000 B limit; raise max_attachment_bytes in config.toml to attach it"},
	}
	// A pipe nobody writes to: opening it to read would wait forever.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	rows = append(rows, struct{ name, path, reason string }{"fifo", fifo,
		"it is a pipe or a device, not a file; pipe it to parley instead (… | parley -p PROMPT)"},
		struct{ name, path, reason string }{"device", "/dev/zero",
			"it is a pipe or a device, not a file; pipe it to parley instead (… | parley -p PROMPT)"})
	for _, row := range rows {
		_, err := attach.Read(row.path, attach.Limits{Text: 1000, Image: 2048})
		var ae *attach.Error
		if !errors.As(err, &ae) || ae.Name != row.path || ae.Reason != row.reason {
			t.Errorf("%s: %v, want %q", row.name, err, row.reason)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: the error is more than one line: %q", row.name, err)
		}
	}
}

// A path to an image attaches the image, told by its bytes whatever its name says, and scaled
// down when it is large: the text limit does not apply to it.
func TestReadAttachesAnImage(t *testing.T) {
	dir := t.TempDir()
	b := encode(t, "png", picture(3072, 192, false))
	p := filepath.Join(dir, "photo.dat")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := attach.Read(p, attach.Limits{Text: 10, Image: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if f.Image == nil || f.Text != "" || f.Image.Name != "photo.dat" || f.Image.Width != 2048 || f.Image.Height != 128 {
		t.Fatalf("read %+v", f)
	}
	if got := f.Image.Scaled(); got != "photo.dat: scaled down from 3072×192 to 2048×128 to send" {
		t.Errorf("scaled note %q", got)
	}
	if got := attach.Images([]attach.File{{Path: "a.go", Text: "package a"}, f}); len(got) != 1 || got[0].Hash != f.Image.Hash {
		t.Errorf("Images: %+v", got)
	}
	if got := attach.Compose("look", "", []attach.File{f}); got != "look" {
		t.Errorf("an image is not text of the message: %q", got)
	}
}
