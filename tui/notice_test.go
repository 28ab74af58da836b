package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/chat/chattest"
	"parley/tui/clipboard"
	"parley/tui/toolask"
)

// expire runs cmd, the wait of a flashed notice, on clock: the notice stays until noticeLife
// has passed by the clock, and its end then comes back through Update.
func expire(t *testing.T, m Model, clock *chattest.Clock, cmd tea.Cmd) Model {
	t.Helper()
	got := make(chan tea.Msg, 1)
	go func() { got <- cmd() }()
	chattest.WaitFor(t, "the notice's wait", func() bool { return clock.Waiting(noticeLife) })
	clock.Advance(noticeLife - time.Millisecond)
	if !clock.Waiting(noticeLife) {
		t.Fatal("the notice ended before its life")
	}
	clock.Advance(time.Millisecond)
	m, _ = step(m, <-got)
	return m
}

// A copy's notice says it was copied, and goes after noticeLife on the clock; one shown after
// it stays.
func TestCopiedNoticeGoesAfterItsLife(t *testing.T) {
	t.Parallel()
	m, clock, _ := answeredOffline(t)
	way := clipboard.Way{Tool: []string{"xclip", "-selection", "clipboard"}}
	m, cmd := step(m, copiedMsg{what: "version 1", text: "Roses are red.", way: way})
	if !strings.Contains(plain(m), "version 1 copied with xclip") || cmd == nil {
		t.Fatalf("no notice of the copy:\n%s", plain(m))
	}
	m = expire(t, m, clock, cmd)
	if strings.Contains(plain(m), "copied") {
		t.Fatalf("the copy's notice outlived its life:\n%s", plain(m))
	}

	m, cmd = step(m, copiedMsg{what: "version 2", text: "Roses are red.", way: way})
	m, _ = step(m, noticeMsg{text: "could not read the clipboard", err: true})
	m = expire(t, m, clock, cmd)
	if !strings.Contains(plain(m), "could not read the clipboard") {
		t.Fatalf("the copy's end took away the notice after it:\n%s", plain(m))
	}
}

// answerTool answers the tool question on screen: run it once, chosen and confirmed.
func answerTool(m Model) Model {
	for range int(toolask.Once) + 1 {
		m, _ = step(m, press("right"))
	}
	m, _ = step(m, press("enter"))
	return m
}

// The notice that a tool call runs goes when its result comes, and with the run.
func TestRunningToolNoticeEndsWithItsResult(t *testing.T) {
	t.Parallel()
	m, _, _ := answeredOffline(t)
	m, _ = step(m, postedMsg{out: outgoing{text: "echo it"}, modelName: "test-model", session: m.session,
		rcpt: stored.Receipt{AnchorID: 3, RunID: 2, ReplyID: 4}})
	call := chat.ToolCall{ID: "call_1", Function: "everything__echo", Arguments: `{"message":"hi"}`}
	res := chat.ToolResult{Server: "everything", Tool: "echo"}
	for i, id := range []string{"call_1", "call_2"} {
		call.ID = id
		m, _ = deliver(m, chat.Event{Kind: chat.EventToolCall, Call: call, CallIndex: i},
			chat.Event{Kind: chat.EventToolAsk, Call: call, Result: res, Answer: make(chan bool, 1)})
		m = answerTool(m)
		if !strings.Contains(plain(m), "running everything__echo") {
			t.Fatalf("no notice of the call running:\n%s", plain(m))
		}
		if i == 1 {
			break // the run ends with it running
		}
		res.Text = "hi"
		m, _ = deliver(m, chat.Event{Kind: chat.EventToolRunning, Call: call, Result: res},
			chat.Event{Kind: chat.EventToolResult, Call: call, Result: res})
		if strings.Contains(plain(m), "running everything__echo") {
			t.Fatalf("the notice outlived the call's result:\n%s", plain(m))
		}
	}
	m, _ = deliver(m, chat.Event{Kind: chat.EventCancelled})
	if m.active != nil || strings.Contains(plain(m), "running everything__echo") {
		t.Fatalf("the notice outlived the run:\n%s", plain(m))
	}
}

// An esc soon after a reply ended (meant to stop it) is not dropped unseen: it says the reply
// has ended and that esc again selects; letters after it are typed, and take the notice away.
func TestEscSoonAfterAReplySaysSo(t *testing.T) {
	t.Parallel()
	m, clock, _ := answeredOffline(t)
	clock.Advance(100 * time.Millisecond)
	m, _ = step(m, press("esc"))
	if m.focus != focusInput || !strings.Contains(plain(m), "nothing to stop: the reply has ended · esc again selects replies") {
		t.Fatalf("a late esc said nothing, or selected:\n%s", plain(m))
	}
	m, _ = step(m, press("esc"))
	if m.focus != focusTranscript {
		t.Fatalf("esc again did not select replies:\n%s", plain(m))
	}
	m = pressKeys(m, "esc", "esc") // back to the input, then a late esc again
	if m.focus != focusInput {
		t.Fatal("esc from the transcript did not go back to the input")
	}
	m = typeText(m, "ok")
	if m.input.Value() != "ok" || strings.Contains(plain(m), "nothing to stop") {
		t.Fatalf("input %q; the question outlived the keys after it:\n%s", m.input.Value(), plain(m))
	}
}
