package attach_test

import (
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
	if f, err := attach.Read(text, 100); err != nil || f.Text != "héllo\n" || f.Path != text {
		t.Fatalf("text file: %+v, %v", f, err)
	}
	rows := []struct {
		name, path, reason string
	}{
		{"missing", filepath.Join(dir, "nope.txt"), "no such file; check the path"},
		{"directory", dir, "it is a directory; attach the files in it one by one"},
		{"NUL byte", write("img.png", []byte("\x89PNG\r\n\x1a\n\x00\x00")), "it is binary, not text; attach text files only"},
		{"invalid UTF-8", write("latin1.txt", []byte("caf\xe9")), "it is binary, not text; attach text files only"},
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
		_, err := attach.Read(row.path, 1000)
		var ae *attach.Error
		if !errors.As(err, &ae) || ae.Name != row.path || ae.Reason != row.reason {
			t.Errorf("%s: %v, want %q", row.name, err, row.reason)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: the error is more than one line: %q", row.name, err)
		}
	}
}
