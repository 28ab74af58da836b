package announce

import (
	"strings"
	"testing"
	"time"

	"parley/internal/chat"
	"parley/internal/chat/chattest"
)

// start is 14:50 on the day the tests run, so the times said are fixed.
var start = time.Date(2026, 3, 1, 14, 50, 0, 0, time.Local)

// said is a Writer on a buffer, and what it has written since the last look.
type said struct {
	t     *testing.T
	w     *Writer
	out   strings.Builder
	taken int
}

func newSaid(t *testing.T) *said {
	s := &said{t: t}
	s.w = New(&s.out)
	return s
}

// emptySession returns a Writer that has been handed session s1 with nothing in it at now,
// and that state.
func emptySession(t *testing.T, now time.Time) (*said, State) {
	s := newSaid(t)
	st := State{Now: now, Session: "s1"}
	s.say(st)
	return s, st
}

// say hands st to the Writer and checks the lines it wrote for it.
func (s *said) say(st State, want ...string) {
	s.t.Helper()
	s.w.Say(st)
	all := s.out.String()
	got := strings.Split(strings.TrimSuffix(all[s.taken:], "\n"), "\n")
	if all[s.taken:] == "" {
		got = nil
	}
	s.taken = len(all)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		s.t.Fatalf("said:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A reply is said as its lines end, the rest when it ends, and its end once, with how long it
// took on the screen's clock; nothing is said twice however often the same state comes.
func TestAReplyIsSaidLineByLine(t *testing.T) {
	clock := chattest.New(start)
	s, st := emptySession(t, clock.Now())
	st.Messages = []Message{{ID: 1, Operator: true, Text: "hello there"},
		{ID: 2, Status: chat.StatusRunning, Streaming: true}}
	s.say(st, "you: hello there")
	s.say(st)
	clock.Advance(time.Second)
	st.Now = clock.Now()
	st.Messages[1].Text = "Hello! Here is"
	s.say(st) // no line has ended
	st.Messages[1].Text = "Hello! Here is a list:\n\n- one\n- tw"
	s.say(st, "parley: Hello! Here is a list:", "", "- one")
	st.Messages[1].Text += "o\n- three"
	s.say(st, "- two")
	clock.Advance(2 * time.Second)
	st.Now = clock.Now()
	st.Messages[1].Streaming, st.Messages[1].Status = false, chat.StatusSucceeded
	s.say(st, "- three", "reply finished in 3 s")
	s.say(st)
}

// A stopped reply says so; a failed one says its failure in the transcript's words; a
// cut one says its finish note.
func TestEndingsAreSaid(t *testing.T) {
	for _, c := range []struct {
		name    string
		reply   Message
		partial string
		want    []string
	}{
		{"stopped", Message{Status: chat.StatusCancelled, Outcome: "cancelled"}, "Once upon", []string{"parley: Once upon", "stopped"}},
		{"failed", Message{Status: chat.StatusFailed, Outcome: "Provider overloaded — upstream busy"}, "", []string{"reply failed: Provider overloaded — upstream busy"}},
		{"cut", Message{Status: chat.StatusSucceeded, Outcome: "cut at the token limit"}, "Long", []string{"parley: Long", "reply finished in 0 s: cut at the token limit"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newSaid(t)
			st := State{Now: start, Session: "s1", Messages: []Message{{ID: 1, Operator: true, Text: "go"},
				{ID: 2, Status: chat.StatusRunning, Streaming: true, Text: c.partial}}}
			s.say(st, "you: go")
			c.reply.ID, c.reply.Text = 2, c.partial
			st.Messages[1] = c.reply
			s.say(st, c.want...)
		})
	}
}

// A Tier 2 wait is said once as it arms, with its time and keys, not as it counts down; again
// when its time changes, and "retrying now" as the retry leaves. A cancel is the notice's.
func TestATier2WaitIsSaidOnce(t *testing.T) {
	clock := chattest.New(start)
	s, st := emptySession(t, clock.Now())
	st.Tier2 = Wait{Words: "Provider overloaded — attempt 1, retrying", Due: start.Add(2 * time.Second), Keys: "esc cancels, enter retries now"}
	s.say(st, "Provider overloaded — attempt 1, retrying in 2 s, at 14:50:02 (esc cancels, enter retries now)")
	for range 2 {
		clock.Advance(time.Second)
		st.Now = clock.Now()
		s.say(st)
	}
	st.Tier2, st.Sending = Wait{}, "retrying now"
	s.say(st, "retrying now")
	st.Sending = ""
	s.say(st)
	st.Tier2 = Wait{Words: "Provider overloaded — attempt 2, retrying", Due: clock.Now().Add(4 * time.Second), Keys: "esc cancels"}
	s.say(st, "Provider overloaded — attempt 2, retrying in 4 s, at 14:50:06 (esc cancels)")
	st.Tier2, st.Notice, st.NoticeGen = Wait{}, "retry cancelled — r to regenerate", 1
	s.say(st, "retry cancelled — r to regenerate")

	far := Wait{Words: "Rate limited — retrying", Due: clock.Now().Add(20 * time.Minute)}
	st.Tier2 = far
	s.say(st, "Rate limited — retrying at 15:10")
}

// A reply's tool calls are said as each ends, between its lines; a silence once as it begins.
func TestToolCallsAndSilences(t *testing.T) {
	s := newSaid(t)
	st := State{Now: start, Session: "s1", Messages: []Message{{ID: 1, Operator: true, Text: "echo one"},
		{ID: 2, Status: chat.StatusRunning, Streaming: true}}}
	s.say(st, "you: echo one")
	st.Messages[1].Tools = []string{`echo {"message":"one"} · ran, 9 B`}
	s.say(st, `tool echo {"message":"one"} · ran, 9 B`)
	st.Silence = "no text for 5s · esc cancels"
	s.say(st, "no text for 5s · esc cancels")
	s.say(st)
	st.Silence = ""
	st.Messages[1].Text = "The tool answered:\n"
	s.say(st, "parley: The tool answered:")
	st.Messages[1].Tools = append(st.Messages[1].Tools, `echo {"message":"two"} · refused`)
	st.Messages[1].Status, st.Messages[1].Streaming = chat.StatusSucceeded, false
	s.say(st, `tool echo {"message":"two"} · refused`, "reply finished in 0 s")
}

// A Tier 1 reconnect is said once per attempt.
func TestAReconnectIsSaidOncePerAttempt(t *testing.T) {
	s, st := emptySession(t, start)
	st.Reconnect = Wait{Words: "Provider overloaded — reconnecting, attempt 1/3", Due: start.Add(time.Second), Keys: "esc cancels"}
	s.say(st, "Provider overloaded — reconnecting, attempt 1/3 in 1 s, at 14:50:01 (esc cancels)")
	st.Now = start.Add(500 * time.Millisecond)
	s.say(st)
	st.Reconnect = Wait{Words: "Provider overloaded — reconnecting, attempt 2/3", Due: start.Add(900 * time.Millisecond), Keys: "esc cancels"}
	s.say(st, "Provider overloaded — reconnecting, attempt 2/3 in 1 s, at 14:50:00 (esc cancels)")
}

// A tool's question is said as it is asked and the answer chosen as it moves; notices are said
// each time one is set, the same words again too; errors say so.
func TestQuestionsAndNotices(t *testing.T) {
	s, st := emptySession(t, start)
	st.Question = "tool everything.echo {} asks to run: run once, always for this tool, refuse; ←/→ choose, enter confirms, esc stops"
	s.say(st, st.Question)
	st.Chosen = "run once"
	s.say(st, "chosen: run once")
	st.Chosen = "refuse"
	s.say(st, "chosen: refuse")
	st.Question, st.Chosen = "", ""
	st.Notice, st.NoticeGen = "running echo {}", 1
	s.say(st, "running echo {}")
	s.say(st)
	st.NoticeGen = 2
	s.say(st, "running echo {}")
	st.Notice, st.NoticeGen, st.NoticeErr = "could not read the clipboard", 3, true
	s.say(st, "error: could not read the clipboard")
}

// A list is said as it opens, with what it shows then, not again as it changes; its closing is
// said.
func TestListsAreSaidAsTheyOpen(t *testing.T) {
	s, st := emptySession(t, start)
	st.List, st.ListKeys, st.ListLines = "sessions", "esc closes", []string{"Keys · 2 messages", "Retries · 4 messages"}
	s.say(st, "sessions open, esc closes:", "Keys · 2 messages", "Retries · 4 messages")
	st.ListLines = st.ListLines[:1]
	s.say(st)
	st.List, st.ListLines = "", nil
	s.say(st, "sessions closed")
}

// The selection is said as it moves, and the return to typing.
func TestTheSelectionIsSaid(t *testing.T) {
	s, st := emptySession(t, start)
	st.Selected = "parley: enter sends"
	s.say(st, "selected: parley: enter sends")
	s.say(st)
	st.Selected = "you: keys?"
	s.say(st, "selected: you: keys?")
	st.Selected = ""
	s.say(st, "back to typing")
}

// Typing is not echoed (the screen reader speaks keys as they are pressed); text put into the
// input otherwise, as an earlier message recalled, is said.
func TestTheInputIsSaidOnlyWhenNotTyped(t *testing.T) {
	s := newSaid(t)
	st := State{Now: start, Session: "s1", Input: "hel", Typed: true}
	s.say(st)
	st.Input = "hello"
	s.say(st)
	st.Input, st.Typed = "an earlier message\nof two lines", false
	s.say(st, "input: an earlier message (and 1 more lines)")
}

// A session continued is named at start; another opened later is named, and its messages,
// some with ids below those written of the one before, are said; older messages read in as
// the transcript scrolls back are not.
func TestSessions(t *testing.T) {
	s := newSaid(t)
	st := State{Now: start, Session: "s1", Title: "Keys", Messages: []Message{{ID: 5, Operator: true, Text: "keys?"},
		{ID: 6, Status: chat.StatusSucceeded, Text: "enter sends"}}}
	s.say(st, "session: Keys", "you: keys?", "parley: enter sends")
	st.Messages = append([]Message{{ID: 3, Operator: true, Text: "older"}}, st.Messages...)
	s.say(st)
	st = State{Now: start, Session: "s2", Title: "", Messages: []Message{{ID: 1, Operator: true, Text: "hi"}}}
	s.say(st, "session: new session", "you: hi")
}

// Nothing written holds a control character: text is neutralised, and blank lines do not
// pile up.
func TestLinesArePlain(t *testing.T) {
	s := newSaid(t)
	st := State{Now: start, Session: "s1", Messages: []Message{{ID: 1, Status: chat.StatusSucceeded,
		Text: "a\x1b[2Jb\r\n\n\n\nc\x07"}}}
	s.say(st, "parley: ab", "", "c")
}
