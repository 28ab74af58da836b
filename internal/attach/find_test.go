package attach

import (
	"strings"
	"testing"
)

// What Compose writes, Find finds again: each file's block, its path and its size.
func TestFindRecognisesComposedFiles(t *testing.T) {
	files := []File{{Path: "main.go", Text: "package main\n\nfunc main() {}\n"}, {Path: "notes/todo.md", Text: "- ```inner fence```\n"}}
	msg := Compose("review these", "", files)
	got := Find(msg)
	if len(got) != 2 {
		t.Fatalf("found %+v in\n%s", got, msg)
	}
	for i, f := range files {
		if s := got[i]; s.Path != f.Path || msg[s.Start:s.End] != Block(f) || s.Size != int64(len(strings.TrimRight(f.Text, "\n"))) {
			t.Fatalf("span %d: %+v, text %q, want %q", i, s, msg[s.Start:s.End], Block(f))
		}
	}
	if got[0].Label() != "main.go · 28 B" {
		t.Fatalf("label %q", got[0].Label())
	}
	// Code the operator typed is not an attachment: no path line, or text right after it.
	for _, typed := range []string{"look:\n```go\nx\n```", "main.go\n```go\nx\n```\nand more", "# main.go\n```go\nx\n```"} {
		if got := Find(typed); len(got) != 0 {
			t.Fatalf("%q: found %+v", typed, got)
		}
	}
}
