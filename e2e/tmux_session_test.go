package e2e

import (
	"fmt"
	"strings"
	"testing"

	"parley/internal/demo"
)

// Two windows on one session: the screen never sends a turn another process stored that it
// has not shown.

func TestTmuxTurnsStoredByAnotherProcessShowBeforeSending(t *testing.T) {
	t.Parallel()
	p := newChatPane(t, 100, 40, nil)
	p.sendAndWait("first question", 1)
	session := strings.Fields(string(p.parley("sessions")))[0]
	p.printMode("--session", session, "-p", "a question from the other window")
	p.requests(2)

	p.send("my second question")
	p.waitScreen("not sent: another parley added 2 messages to this session")
	s := p.waitScreen("a question from the other window")
	if in := screenInputLine(s); in != "my second question" {
		t.Fatalf("input %q, want the text back; screen:\n%s", in, s)
	}
	p.requests(2)

	// Shown, it goes with the next message: the model sees what the operator saw. Its reply
	// is the barrier: had the refused send left, it would be the third request, and a fourth.
	p.key("Enter")
	p.waitReplies(3)
	p.requests(3)
	sent := p.srv.Received()[2].Messages
	var texts []string
	for _, m := range sent {
		texts = append(texts, m.Content)
	}
	joined := strings.Join(texts, "\n")
	if len(sent) != 5 || !strings.Contains(joined, "a question from the other window") || sent[4].Content != "my second question" {
		t.Fatalf("sent %d messages:\n%s", len(sent), joined)
	}
}

// ctrl+p walks on from this session's messages into those sent in earlier ones.
func TestTmuxRecallReachesEarlierSessions(t *testing.T) {
	t.Parallel()
	p := newChatPane(t, 100, 30, nil)
	p.sendAndWait("asked in the first session", 1)
	p.send("/new")
	p.waitScreenNot("asked in the first session")
	p.sendAndWait("asked in the second", 1)
	p.press("C-p", "┃ asked in the second")
	p.press("C-p", "┃ asked in the first session")
}

// /sessions with many sessions: paging, the words that matched first at 80 columns, opening a
// match at the message that matched, and deleting after asking.
func TestTmuxSessionsPickerPagesFindsAndDeletes(t *testing.T) {
	t.Parallel()
	p := newPane(t, "m", demo.Options{})
	for i := range 30 {
		prompt := fmt.Sprintf("question number %d", i)
		if i == 2 {
			prompt = "an old question whose words go on for a while before they say that quokkas live on Rottnest"
		}
		p.printMode("-p", prompt)
	}
	p.start(80, 24, nil)
	p.send("/sessions")
	p.waitScreen("Sessions")
	p.press("End", "question number 0 ")
	p.press("Home", "› ")
	p.typeText("quokkas")
	s := p.waitScreen("that quokkas live")
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "› ") && !strings.Contains(l, "that quokkas live") {
			t.Fatalf("the row does not show the words that matched at 80 columns:\n%s", s)
		}
	}
	s = p.press("Enter", "SELECT")
	if !strings.Contains(s, "the message that matched “quokkas”") {
		t.Fatalf("opening the match:\n%s", s)
	}
	p.key("i")
	p.send("/sessions")
	p.waitScreen("Sessions")
	p.keys("End", "C-d")
	p.waitScreen("ctrl+d again deletes “question number 0”")
	p.press("C-d", "deleted “question number 0”")
	if strings.Contains(string(p.parley("sessions")), "question number 0\n") {
		t.Fatal("the session is still listed after ctrl+d twice")
	}
}
