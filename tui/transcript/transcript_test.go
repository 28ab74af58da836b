package transcript

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"parley/history/stored"
	"parley/internal/chat"
	"parley/tui/transcript/transcripttest"
)

// The transcript, driven as the chat screen drives it: a message changes it, Prepare renders
// what the window shows within the message's quota, and View draws the window.

// storedExchanges returns n finished question/answer pairs as the database would return them.
var storedExchanges = transcripttest.StoredExchanges

// newList returns a transcript of width×height showing msgs, prepared as after its first
// message.
func newList(msgs []stored.Message, width, height int) *List {
	l := New(Styles{})
	l.SetSize(width, height)
	l.Reset(msgs)
	l.Prepare()
	return l
}

// plain is the text of the window, without styles.
func plain(l *List) string { return ansi.Strip(strings.Join(l.View(), "\n")) }

// r on an operator message regenerates its reply, and [ shows that reply's versions.
func TestAnOperatorMessageStandsForItsReply(t *testing.T) {
	l := newList(storedExchanges(2), 80, 20)
	if got := l.Anchor(3); got != 3 {
		t.Fatalf("Anchor of an operator message: %d", got)
	}
	if got := l.Reply(3); got != 4 {
		t.Fatalf("Reply of an operator message: %d, want its reply 4", got)
	}
	if got := l.Reply(4); got != 4 {
		t.Fatalf("Reply of a reply: %d", got)
	}
	var h stored.Message
	h.Role = chat.RoleSystem
	if selectable(h) {
		t.Fatal("a system prompt is selectable")
	}
}

// Opening and scrolling a long session renders only the messages that reach the screen. The
// window is the transcript's of a 100×40 screen; a page up scrolls a window less a line, as
// pgup does.
func TestViewRendersOnlyVisibleMessages(t *testing.T) {
	l := newList(storedExchanges(5000), 100, 36)
	rendered := func() int {
		n := 0
		for _, e := range l.entries {
			if e.cache.lines != nil {
				n++
			}
		}
		return n
	}
	l.View()
	if n := rendered(); n == 0 || n > 40 {
		t.Fatalf("first frame rendered %d of 10000 messages", n)
	}
	for range 10 {
		l.ScrollUp(l.Height() - 1)
		l.Prepare()
		l.View()
	}
	l.GotoTop()
	l.Prepare()
	l.View()
	if n := rendered(); n > 200 {
		t.Fatalf("scrolling rendered %d messages", n)
	}
	if !strings.Contains(plain(l), "question 1\n") {
		t.Fatalf("home does not show the first message:\n%s", plain(l))
	}
}
