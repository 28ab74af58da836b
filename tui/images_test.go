package tui

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"parley/internal/chat/chattest"

	tea "charm.land/bubbletea/v2"
)

// Images on the chat screen: attached with /file or by dropping the file on the terminal,
// shown as chips, sent with the message and kept with it (and with the draft).

func TestAnImageGoesWithTheMessage(t *testing.T) {
	t.Parallel()
	photo, want := chattest.WritePNG(t, t.TempDir(), "photo.png", 320, 240)
	d, srv, _, db := demoScreen(t, screenConfig{})
	d.attach(photo)
	if s := plain(d.m); !strings.Contains(s, "▣ photo.png · 320×240 · ") {
		t.Fatalf("no image chip above the input:\n%s", s)
	}
	d.typeAndSend("what is this?")
	d.until("the reply", answered(t, 2))
	sent := srv.Received()[0].Messages[0]
	if sent.Content != "what is this?" || len(sent.Images) != 1 || !bytes.Equal(sent.Images[0].Data, want) {
		t.Fatalf("sent %q with %d images", sent.Content, len(sent.Images))
	}
	stored := liveMessages(t, db, d.m.session.ID)[0]
	if len(stored.Images) != 1 || stored.Images[0].Name != "photo.png" || stored.Images[0].Width != 320 {
		t.Fatalf("stored %+v", stored.Images)
	}
	if s := plain(d.m); !strings.Contains(s, "  ▣ photo.png · 320×240 · ") || !strings.Contains(s, "PNG, 320×240 pixels") {
		t.Fatalf("the transcript does not show the image sent, or the demo's description of it:\n%s", s)
	}

	// An image alone is a message too.
	d.attach(photo)
	d.send(press("enter"))
	d.until("the second reply", answered(t, 4))
	if got := srv.Received()[1].Messages; len(got) != 3 || got[2].Content != "" || len(got[2].Images) != 1 || len(got[0].Images) != 1 {
		t.Fatalf("second request %+v", got)
	}
}

// A file dropped on the terminal arrives as a paste of its path, quoted or escaped or as a
// file:// URL: an image is attached, anything else is pasted as text.
func TestADroppedImageIsAttached(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spaced, _ := chattest.WritePNG(t, dir, "my photo.png", 8, 8)
	plainPath, _ := chattest.WritePNG(t, dir, "shot.png", 8, 8)
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("text"), 0o600)
	for paste, want := range map[string]string{
		plainPath:                             plainPath,
		"'" + spaced + "'":                    spaced,
		strings.ReplaceAll(spaced, " ", `\ `): spaced,
		"file://" + (&url.URL{Path: spaced}).EscapedPath() + "\n": spaced,
	} {
		if got, ok := droppedImage(paste); !ok || got != want {
			t.Errorf("%q: %q %v, want %q", paste, got, ok, want)
		}
	}
	for _, paste := range []string{notes, plainPath + "\n" + plainPath, "look at " + plainPath, filepath.Join(dir, "gone.png"), dir} {
		if got, ok := droppedImage(paste); ok {
			t.Errorf("%q taken for the image %q", paste, got)
		}
	}

	d, _, _, _ := demoScreen(t, screenConfig{})
	d.send(tea.PasteMsg{Content: "'" + spaced + "'"})
	d.until("the chip", func(m Model) bool { return len(m.next.files) == 1 })
	if !d.m.input.Empty() || !strings.Contains(plain(d.m), "▣ my photo.png · 8×8") {
		t.Fatalf("input %q; screen:\n%s", d.m.input.Value(), plain(d.m))
	}
}

// An image attached and not sent stays with the draft across a quit, bytes and all.
func TestAnAttachedImageSurvivesAQuit(t *testing.T) {
	t.Parallel()
	photo, want := chattest.WritePNG(t, t.TempDir(), "photo.png", 16, 16)
	d, _, _, db := demoScreen(t, screenConfig{})
	d.attach(photo)
	d.until("the draft stored", func(Model) bool {
		f, err := db.DraftFiles(d.m.session.ID)
		return err == nil && len(f) == 1
	})
	kept, err := db.DraftFiles(d.m.session.ID)
	if err != nil {
		t.Fatal(err)
	}
	back := fromDraftFiles(kept)
	if len(back) != 1 || back[0].Image == nil || !bytes.Equal(back[0].Image.Data, want) || back[0].Image.Width != 16 {
		t.Fatalf("the draft kept %+v", back)
	}
}
