package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
	"time"

	"parley/internal/chat/chattest"
	"parley/internal/demo"
)

// An image on the system clipboard (put there with xclip, on a display of Xvfb's) becomes a
// chip with ctrl+v and goes with the next message, byte for byte.
func TestTmuxPasteAnImageFromTheClipboard(t *testing.T) {
	display := xDisplay(t)
	picture := chattest.PNG(t, 48, 32)
	// xclip forks to serve the selection, and goes with the display; its output is not
	// captured, or waiting for it would wait for the fork.
	owner := exec.Command("xclip", "-selection", "clipboard", "-t", "image/png", "-i")
	owner.Env = append(os.Environ(), "DISPLAY="+display)
	owner.Stdin = bytes.NewReader(picture)
	if err := owner.Run(); err != nil {
		t.Fatalf("xclip -i: %v", err)
	}

	p := newPane(t, "m", demo.Options{})
	p.start(100, 30, []string{"DISPLAY=" + display, "WAYLAND_DISPLAY=", "SSH_TTY=", "SSH_CONNECTION="})
	p.key("C-v")
	p.waitScreen("▣ clipboard · 48×32 · ")
	p.send("what is on my clipboard?")
	p.key("Enter")
	p.waitScreen("PNG, 48×32 pixels")
	got := p.srv.Received()[0].Messages[0]
	if got.Content != "what is on my clipboard?" || len(got.Images) != 1 || !bytes.Equal(got.Images[0].Data, picture) {
		t.Fatalf("sent %q with %d images", got.Content, len(got.Images))
	}

	// With text on the clipboard, ctrl+v says there is no image and leaves the input alone.
	text := exec.Command("xclip", "-selection", "clipboard", "-i")
	text.Env = append(os.Environ(), "DISPLAY="+display)
	text.Stdin = bytes.NewReader([]byte("just words"))
	if err := text.Run(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // xclip hands the selection over as it forks
	p.key("C-v")
	p.waitScreen("nothing attached: the clipboard holds no image")
}
