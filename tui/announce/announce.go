// Package announce is the chat screen's screen-reader mode: what a screen reader meets in the
// terminal's own line stream. The screen hands it its state after every message it handles
// (State); the Writer compares it with the state before and writes what changed as plain lines
// of words, each once, appended and never redrawn: no cursor movement, no erasing, no
// alternate screen, no colour.
//
// Typed text is not echoed. A screen reader speaks the keys typed itself, and an echo the
// terminal cannot take back (the input's cursor moves, earlier messages recalled, a paste
// collapsed) would leave lines that no longer say what the input holds; the message is said
// once, whole, as it is sent ("you: …"), and text put into the input by anything but typing
// (an earlier message recalled, a draft given back) is said as it arrives ("input: …").
package announce

import (
	"fmt"
	"io"
	"strings"
	"time"

	"parley/internal/chat"
	"parley/internal/sanitize"
)

// Message is one message of the transcript as the screen holds it.
type Message struct {
	ID int64
	// Operator says the operator wrote it; otherwise it is a reply.
	Operator bool
	// Text is its text so far, as the transcript shows it (sanitized).
	Text string
	// Streaming says a run is still writing it.
	Streaming bool
	// Status is a reply's run status.
	Status chat.Status
	// Outcome is, for a reply whose run ended other than well, what the transcript says under
	// it ("cancelled", the failure's label and message); for one that ended well, its finish
	// note, if any ("cut at the token limit").
	Outcome string
	// Note is the line under a reply about a retry of it that left it in place.
	Note string
	// Tools are its tool calls that have ended, each in one line: "echo {…} · ran, 9 B".
	Tools []string
}

// Wait is a wait before a retry that is armed: Tier 2's countdown, or Tier 1's reconnect.
type Wait struct {
	// Words say what it waits for, without when: "Provider overloaded — attempt 1,
	// retrying". "" when nothing waits.
	Words string
	// Due is when it ends; zero when it waits for nothing timed.
	Due time.Time
	// Keys say what acts on it: "esc cancels, enter retries now".
	Keys string
}

// State is what the screen says at one moment.
type State struct {
	// Now is the screen's clock.
	Now time.Time
	// Session names the open session; Title is its title.
	Session, Title string
	// Intro is the first screen's text while it shows, said once.
	Intro []string
	// Messages are the transcript's messages, oldest first.
	Messages []Message
	// Notice is the status line's notice; NoticeGen counts notices, so the same words set
	// again are said again. NoticeErr marks an error.
	Notice    string
	NoticeGen int
	NoticeErr bool
	// Tier2 is the armed Tier 2 retry; Sending says its retry is being sent ("retrying now",
	// or "sending now" for a run that was held back unsent), "" otherwise.
	Tier2   Wait
	Sending string
	// Reconnect is Tier 1's wait before it sends a run again.
	Reconnect Wait
	// Silence says the reply being written has been silent a while ("no text for 5 s · esc
	// cancels"), "" while it is not: said once as it begins.
	Silence string
	// Question is the question in front of the conversation, with its keys: a tool call
	// waiting for its answer, a key asking to be pressed again; Chosen is the answer chosen so
	// far. "" when none stands.
	Question, Chosen string
	// List names the list in front of the conversation (help, sessions, models…), "" when
	// none; ListLines are what it shows as it opens, ListKeys the keys that close it.
	List, ListKeys string
	ListLines      []string
	// Selected is the message selected while messages are (esc), its first line after who
	// wrote it, "you: keys?"; "" while typing.
	Selected string
	// Input is what the input holds; Typed says the last change to it was a key typed (or
	// erased) there, which the screen reader has spoken already.
	Input string
	Typed bool
}

// replyState is what has been written of one message.
type replyState struct {
	written int  // bytes of its text written, up to the end of the last whole line
	started bool // its first line (with its "parley: " or "you: ") is written
	inCode  bool // the last line written of a reply is inside a fenced code block
	ended   bool // how it ended is said
	note    string
	tools   int       // tool calls said
	begun   time.Time // when it was first seen streaming, zero for a message loaded ended
}

// Writer writes the screen's changes to a terminal as lines. Its zero value is not usable;
// New makes one.
type Writer struct {
	out   io.Writer
	begun bool // a state has been said
	// introduced is set once the first screen is said.
	introduced bool
	prev       State
	session    string
	// newest is the highest message id written; messages below it that appear later (older
	// ones read in as the transcript scrolls back) are not written.
	newest int64
	said   map[int64]*replyState
	// lastBlank is set when the last line written was empty: runs of empty lines are one.
	lastBlank bool
}

// New returns a Writer writing to out.
func New(out io.Writer) *Writer {
	return &Writer{out: out, said: map[int64]*replyState{}}
}

// Say writes what changed between the last state said and s.
func (w *Writer) Say(s State) {
	if !w.begun || s.Session != w.session {
		w.openSession(s)
	}
	if len(s.Intro) > 0 && !w.introduced {
		w.introduced = true
		for _, l := range s.Intro {
			w.line(l)
		}
	}
	w.messages(s)
	w.waits(s)
	w.questions(s)
	w.lists(s)
	w.selection(s)
	w.notice(s)
	w.input(s)
	w.prev = s
}

// openSession says which session is open: the one the screen starts on, when it has a title
// (a session continued), and any other it opens later, forgetting what was written of the one
// before. A new session, stored as its first message is sent, goes on unsaid.
func (w *Writer) openSession(s State) {
	first, was := !w.begun, w.session
	w.begun, w.session = true, s.Session
	if first {
		if s.Title != "" {
			w.line("session: " + s.Title)
		}
		return
	}
	if was == "" || s.Session == "" {
		return
	}
	w.newest, w.said = 0, map[int64]*replyState{}
	title := s.Title
	if title == "" {
		title = "new session"
	}
	w.line("session: " + title)
}

// messages writes new messages, the new whole lines of streaming replies, and how each ended.
func (w *Writer) messages(s State) {
	for _, m := range s.Messages {
		st := w.said[m.ID]
		if st == nil {
			if m.ID <= w.newest {
				continue // read in from earlier in the session, above what is written
			}
			w.newest = m.ID
			st = &replyState{}
			if m.Streaming || m.Status == chat.StatusQueued || m.Status == chat.StatusRunning {
				st.begun = s.Now
			}
			w.said[m.ID] = st
			if m.Status == chat.StatusQueued {
				w.line("queued: sends when the current reply ends")
			}
		}
		running := m.Streaming || m.Status == chat.StatusRunning
		if running && st.ended { // a reply continued where it was cut goes on
			st.ended, st.begun = false, s.Now
		}
		switch {
		case running:
			w.text(m, st, false)
		case m.Status != chat.StatusQueued && !st.ended:
			w.text(m, st, true)
		}
		for _, call := range m.Tools[min(st.tools, len(m.Tools)):] {
			w.line("tool " + call)
		}
		st.tools = len(m.Tools)
		if !running && m.Status != chat.StatusQueued && !st.ended {
			w.ending(m, st, s.Now)
			st.ended = true
		}
		if m.Note != "" && m.Note != st.note {
			w.line(m.Note)
		}
		st.note = m.Note
	}
}

// text writes m's whole lines not yet written, and with all its rest too.
func (w *Writer) text(m Message, st *replyState, all bool) {
	if st.written > len(m.Text) {
		st.written, st.inCode = 0, false // replaced (a retry's reply in the place of the one it retried)
	}
	rest := m.Text[st.written:]
	if !all {
		cut := strings.LastIndexByte(rest, '\n')
		if cut < 0 {
			return
		}
		rest = rest[:cut+1]
	}
	st.written += len(rest)
	rest = strings.TrimSuffix(rest, "\n")
	if rest == "" && (st.started || !all || !m.Operator) {
		return
	}
	for _, l := range strings.Split(rest, "\n") {
		if !m.Operator {
			l = words(l, &st.inCode)
		}
		if !st.started {
			st.started = true
			if m.Operator {
				l = "you: " + l
			} else {
				l = "parley: " + l
			}
		}
		w.line(l)
	}
}

// ending says how reply m ended, when it was watched streaming; a reply loaded ended says
// only what went other than well.
func (w *Writer) ending(m Message, st *replyState, now time.Time) {
	if m.Operator {
		return
	}
	switch m.Status {
	case chat.StatusSucceeded:
		if st.begun.IsZero() {
			if m.Outcome != "" {
				w.line(m.Outcome)
			}
			return
		}
		done := "reply finished in " + spokenSeconds(now.Sub(st.begun)+time.Second/2)
		if m.Outcome != "" {
			done += ": " + m.Outcome
		}
		w.line(done)
	case chat.StatusCancelled:
		if st.begun.IsZero() {
			w.line("cancelled")
			return
		}
		w.line("stopped")
	case chat.StatusFailed:
		w.line("reply failed: " + m.Outcome)
	default:
		if m.Outcome != "" {
			w.line(m.Outcome)
		}
	}
}

// waits says a wait before a retry once as it is armed, again when its time changes, and that
// the retry goes when it does. A cancel is said by the notice that says it.
func (w *Writer) waits(s State) {
	if s.Tier2.Words != "" && (s.Tier2.Words != w.prev.Tier2.Words || !s.Tier2.Due.Equal(w.prev.Tier2.Due)) {
		w.line(waiting(s.Tier2, s.Now))
	}
	if s.Sending != "" && w.prev.Sending == "" {
		w.line(s.Sending)
	}
	if s.Silence != "" && w.prev.Silence == "" {
		w.line(s.Silence)
	}
	if r := s.Reconnect; r.Words != "" && (r.Words != w.prev.Reconnect.Words || !r.Due.Equal(w.prev.Reconnect.Due)) {
		w.line(waiting(r, s.Now))
	}
}

// waiting words wait a at now: "Provider overloaded — attempt 1, retrying in 2 s, at 14:50:02
// (esc cancels, enter retries now)"; a wait of minutes says only when, "Rate limited —
// retrying at 15:10".
func waiting(a Wait, now time.Time) string {
	s := a.Words
	if !a.Due.IsZero() {
		if left := a.Due.Sub(now); left < spokenWait {
			// Rounded up, as a countdown is: "in 0 s" is never said of a wait still ahead.
			s += " in " + spokenSeconds(left+time.Second-1) + ", at " + chat.FormatClockSeconds(a.Due, now)
		} else {
			s += " at " + chat.FormatClock(a.Due, now)
		}
	}
	if a.Keys != "" {
		s += " (" + a.Keys + ")"
	}
	return s
}

// spokenWait is the longest wait said with its length and time to the second; a longer one is
// said by the minute it ends at.
const spokenWait = 5 * time.Minute

// questions says a question as it is asked, and the answer chosen as it moves.
func (w *Writer) questions(s State) {
	if s.Question != "" && s.Question != w.prev.Question {
		w.line(s.Question)
	}
	if s.Question != "" && s.Chosen != "" && (s.Chosen != w.prev.Chosen || s.Question != w.prev.Question) {
		w.line("chosen: " + s.Chosen)
	}
}

// lists says a list as it opens, with what it shows then, and that it closed.
func (w *Writer) lists(s State) {
	switch {
	case s.List == w.prev.List:
	case s.List != "":
		w.line(s.List + " open, " + s.ListKeys + ":")
		for _, l := range s.ListLines {
			w.line(l)
		}
	default:
		w.line(w.prev.List + " closed")
	}
}

// selection says the message selected as the selection moves, and the return to typing.
func (w *Writer) selection(s State) {
	switch {
	case s.Selected == w.prev.Selected:
	case s.Selected != "":
		w.line("selected: " + s.Selected)
	default:
		w.line("back to typing")
	}
}

// notice says each notice as it is set.
func (w *Writer) notice(s State) {
	if s.Notice == "" || (s.NoticeGen == w.prev.NoticeGen && s.Notice == w.prev.Notice) {
		return
	}
	if s.NoticeErr {
		w.line("error: " + s.Notice)
		return
	}
	w.line(s.Notice)
}

// input says what the input holds when something other than typing put it there.
func (w *Writer) input(s State) {
	if s.Typed || s.Input == w.prev.Input || s.Input == "" {
		return
	}
	lines := strings.Split(s.Input, "\n")
	said := "input: " + lines[0]
	if len(lines) > 1 {
		said += fmt.Sprintf(" (and %d more lines)", len(lines)-1)
	}
	w.line(said)
}

// line writes one line, neutralised: nothing in it reaches the terminal as a control.
func (w *Writer) line(s string) {
	s = strings.TrimRight(sanitize.String(s), " \t")
	if s == "" {
		if w.lastBlank {
			return
		}
		w.lastBlank = true
	} else {
		w.lastBlank = false
	}
	_, _ = io.WriteString(w.out, s+"\n")
}

// spokenSeconds is d, in whole seconds cut down, as a screen reader says it well: "3 s",
// "1 min 12 s".
func spokenSeconds(d time.Duration) string {
	secs := int(max(d, 0) / time.Second)
	if secs < 60 {
		return fmt.Sprintf("%d s", secs)
	}
	if secs%60 == 0 {
		return fmt.Sprintf("%d min", secs/60)
	}
	return fmt.Sprintf("%d min %d s", secs/60, secs%60)
}
