package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/internal/chat/chattest"
	"parley/internal/demo"
	"parley/tui/announce"
)

// readerScreen is demoScreen whose every step is said as Reader says it, to the buffer
// returned.
func readerScreen(t *testing.T, c screenConfig) (*driver, *chattest.Clock, *chattest.Buffer) {
	t.Helper()
	d, _, clock, _ := demoScreen(t, c)
	out := new(chattest.Buffer)
	say := announce.New(out)
	d.after = func(m Model, msg tea.Msg) { say.Say(m.spoken(typed(msg, m.input.KeyMap, m.keys.Input.Send))) }
	return d, clock, out
}

// The screen's Tier 2 wait, armed after a 503, is said once with its time and keys, not at each
// tick of its countdown; esc's cancel is said; what was typed is said once, as it is sent.
func TestReaderSaysATier2WaitOnce(t *testing.T) {
	t.Parallel()
	d, clock, out := readerScreen(t, tier2Config(demo.Overloaded()))
	d.typeAndSend("hello")
	d.until("the retry to arm", armed)
	wait := "Provider overloaded — attempt 1, retrying in 2 s, at 14:00:02 (esc cancels, enter retries now)"
	if got := out.String(); !strings.Contains(got, "you: hello\n") || !strings.Contains(got, "reply failed: Provider overloaded — ") ||
		!strings.HasSuffix(got, "\n"+wait+"\n") || strings.Contains(got, "you: h\n") {
		t.Fatalf("said:\n%s", got)
	}
	said := out.String()
	clock.Advance(time.Second)
	d.send(tier2TickMsg{token: d.m.tier2.Token()})
	if !d.m.tier2.Armed() || out.String() != said {
		t.Fatalf("a tick of the countdown (armed %v) said:\n%s", d.m.tier2.Armed(), strings.TrimPrefix(out.String(), said))
	}
	d.send(press("esc"))
	if got := strings.TrimPrefix(out.String(), said); got != "retry cancelled — r to regenerate\n" {
		t.Fatalf("esc said %q", got)
	}
}

// A reply is said as it streams, and its end; a stop by esc says so; the selection is said;
// typing is not, and an earlier message recalled is.
func TestReaderSaysAReplyAStopAndTheSelection(t *testing.T) {
	t.Parallel()
	d, _, out := readerScreen(t, screenConfig{demo: cancellable})
	d.sendUntilStreaming("tell me a story")
	d.until("a line of the reply said", func(Model) bool { return strings.Contains(out.String(), "parley: ") })
	d.send(press("esc"))
	d.until("the run to end", func(m Model) bool { return m.active == nil })
	got := out.String()
	if !strings.Contains(got, "you: tell me a story\n") || !strings.HasSuffix(got, "\nstopped\n") {
		t.Fatalf("said:\n%s", got)
	}
	if strings.Count(got, "parley: ") != 1 {
		t.Fatalf("the reply's first line said more than once:\n%s", got)
	}
	// esc selects messages: the selection is said as it moves, and the way back.
	d.selectReplies()
	d.send(press("up"))
	d.send(press("i"))
	if rest := strings.TrimPrefix(out.String(), got); !strings.HasPrefix(rest, "selected: parley: ") ||
		!strings.HasSuffix(rest, "\nselected: you: tell me a story\nback to typing\n") {
		t.Fatalf("selecting said:\n%s", rest)
	}
	// Typing is not echoed; an earlier message recalled into the input is said.
	said := out.String()
	d.input("so")
	d.send(press("ctrl+u"))
	d.send(press("ctrl+p"))
	if rest := strings.TrimPrefix(out.String(), said); rest != "input: tell me a story\n" {
		t.Fatalf("typing, erasing and recalling said %q", rest)
	}
}

// A tool's question is said with its keys, the answer as → moves it, and the call's end as it
// comes back, before the reply that follows it.
func TestReaderSaysAToolQuestionAndItsCall(t *testing.T) {
	t.Parallel()
	d, _, _ := toolScreen(t, demo.AskTools(demo.Call{Function: "echo", Arguments: `{"message":"one"}`}))
	out := new(chattest.Buffer)
	say := announce.New(out)
	d.after = func(m Model, msg tea.Msg) { say.Say(m.spoken(typed(msg, m.input.KeyMap, m.keys.Input.Send))) }
	d.typeAndSend("echo one")
	asked(d)
	d.send(press("right"))
	d.send(press("enter"))
	d.until("the reply", answered(t, 2))
	want := []string{
		"you: echo one",
		`tool everything.echo {"message":"one"} asks to run: run once, always for this tool, refuse; ←/→ choose, enter confirms, esc stops`,
		"chosen: run once",
		`running echo {"message":"one"}`,
		`tool echo {"message":"one"} · ran, 9 B`,
		"parley: ",
		"reply finished in ",
	}
	got := out.String()
	at := 0
	for _, w := range want {
		i := strings.Index(got[at:], w)
		if i < 0 {
			t.Fatalf("%q is not said after what came before it; said:\n%s", w, got)
		}
		at += i + len(w)
	}
}
