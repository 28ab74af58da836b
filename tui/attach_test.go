package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"parley/internal/attach"
)

// Attachments on the chat screen: /file, its chips, and the files parley was started with.

func TestFileAttachesToTheNextMessageOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.md")
	if err := os.WriteFile(notes, []byte("remember the milk\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	binary := filepath.Join(dir, "pic.png")
	if err := os.WriteFile(binary, []byte("\x89PNG\x00\x00"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, srv, _, db := demoScreen(t, screenConfig{})

	d.typeAndSend("/file " + binary)
	d.until("the refusal", func(m Model) bool { return m.noticeErr })
	if !strings.Contains(d.m.notice, "cannot attach "+binary+": it is binary") || len(d.m.next.files) != 0 {
		t.Fatalf("a binary file: notice %q, %d attached", d.m.notice, len(d.m.next.files))
	}
	if d.m.input.Value() != "/file "+binary {
		t.Fatalf("the failed line is not back in the input: %q", d.m.input.Value())
	}
	d.send(press("ctrl+c")) // clears it
	d.attach(notes)
	if s := plain(d.m); !strings.Contains(s, " "+notes+" · 18 B ") || !strings.Contains(s, "/file drops") {
		t.Fatalf("no chip above the input:\n%s", s)
	}
	d.typeAndSend("what is in it?")
	d.until("the reply", answered(t, 2))
	want := "what is in it?\n\n" + notes + "\n```md\nremember the milk\n```"
	if got := srv.Received()[0].Messages[0].Content; got != want {
		t.Fatalf("sent %q, want %q", got, want)
	}
	if stored := liveMessages(t, db, d.m.session.ID)[0].Content; stored != want {
		t.Fatalf("stored %q: the attachment is part of the operator message", stored)
	}
	if strings.Contains(plain(d.m), "/file drops") {
		t.Fatalf("the chip outlived the message:\n%s", plain(d.m))
	}
	d.typeAndSend("and without it?")
	d.until("the second reply", answered(t, 4))
	if got := srv.Received()[1].Messages[2].Content; got != "and without it?" {
		t.Fatalf("the second message carried %q", got)
	}

	d.attach(notes)
	d.typeAndSend("/file")
	if len(d.m.next.files) != 0 || strings.Contains(plain(d.m), "/file drops") {
		t.Fatalf("/file alone kept %d attachments", len(d.m.next.files))
	}
}

func TestAQuestionGivenAtStartIsSentWithItsAttachments(t *testing.T) {
	t.Parallel()
	o, srv, _ := demoOptions(t, screenConfig{})
	o.Send = "what is in it?"
	o.Attachments = []attach.File{{Path: "a.go", Text: "package a\n"}}
	if before, _ := step(New(o), tea.WindowSizeMsg{Width: 120, Height: 30}); !strings.Contains(plain(before), "a.go · 10 B") {
		t.Fatalf("the attachment is not shown while the session opens:\n%s", plain(before))
	}
	m, cmd := openModel(t, o, 120, 30)
	d := newDriver(t, m)
	d.exec(cmd)
	d.until("the reply", answered(t, 2))
	if got := srv.Received()[0].Messages[0].Content; got != "what is in it?\n\na.go\n```go\npackage a\n```" {
		t.Fatalf("sent %q", got)
	}
}
