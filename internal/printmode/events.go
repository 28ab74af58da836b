package printmode

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"parley/agent"
	"parley/internal/chat"
	"parley/internal/sanitize"
)

// flushAfter is how long streamed text may wait in print mode's output buffer.
const flushAfter = 10 * time.Millisecond

// view is where one run's events go in print mode, and how.
type view struct {
	stdout, stderr io.Writer
	// jsonOut keeps the answer off stdout until the JSON object; showReasoning writes the
	// thinking to stderr.
	jsonOut, showReasoning bool
	// stdoutTerminal and stderrTerminal neutralise control sequences on a terminal, and on a
	// terminal stderr shows the time waited for the first word.
	stdoutTerminal, stderrTerminal bool
	// maxTokens and profile are the endpoint's, for the fix of a reply that thought until the
	// token limit (chat.ThoughtOut).
	maxTokens int
	profile   string
}

// printEvents streams a run's events as print mode shows them: the answer to stdout (unless
// jsonOut; neutralised when stdout is a terminal), thinking to stderr with --show-reasoning,
// Tier 1's notes and the wait for the first word to stderr. It returns what the --json object
// says of the run and the exit status, both from chat.Decide.
func printEvents(events <-chan chat.Event, v view) (runOutput, int) {
	s := newStream(v)
	defer s.stopWaiting()
	var last chat.Event
	ended := false
	for {
		ev, ok := s.next(events)
		if !ok {
			break
		}
		s.handle(ev)
		last, ended = ev, ev.Terminal()
	}
	return s.end(chat.Decide(last, ended))
}

// stream is one run's events on their way out.
type stream struct {
	v   view
	res runOutput
	// answer and thinking are the text so far; san and thinkSan neutralise them on a
	// terminal, carrying a sequence split across deltas from one to the next.
	answer, thinking strings.Builder
	san, thinkSan    *sanitize.Stream
	// out buffers stdout: text is flushed flushAfter after it was written, so a fast stream
	// costs one write per batch rather than per delta.
	out   *bufio.Writer
	flush <-chan time.Time
	// tick redraws the wait for the first word each second, on a terminal, from sent;
	// statusShown says the line is on screen.
	tick        *time.Ticker
	sent        time.Time
	statusShown bool
	// thinkingOpen is set while thinking written to stderr has not ended its line: anything
	// else said there starts on a line of its own.
	thinkingOpen bool
	// notes are what the run's end says beyond its outcome (chat.RunNotes).
	notes []string
}

func newStream(v view) *stream {
	s := &stream{v: v, out: bufio.NewWriterSize(v.stdout, 32<<10)}
	if v.stdoutTerminal {
		s.san = new(sanitize.Stream)
	}
	if v.stderrTerminal {
		s.thinkSan = new(sanitize.Stream)
	}
	return s
}

// next returns the next event, flushing stdout and redrawing the wait while none comes; ok
// is false once the events have ended.
func (s *stream) next(events <-chan chat.Event) (ev chat.Event, ok bool) {
	for {
		var tick <-chan time.Time
		if s.tick != nil {
			tick = s.tick.C
		}
		select {
		case ev, ok = <-events:
			return ev, ok
		case <-s.flush:
			s.flush = nil
			s.out.Flush()
		case now := <-tick:
			fmt.Fprintf(s.v.stderr, "\r\x1b[Kwaiting for the reply · %s · ctrl+c cancels", chat.FormatElapsed(now.Sub(s.sent)))
			s.statusShown = true
		}
	}
}

// handle shows one event and notes what the --json object says of it.
func (s *stream) handle(ev chat.Event) {
	switch ev.Kind {
	case chat.EventStarted:
		s.started()
	case chat.EventCompacted:
		s.clearStatus()
		s.res.OmittedMessages = ev.Omitted
		fmt.Fprintf(s.v.stderr, "parley: %s\n", agent.OmittedNote(ev.Omitted))
	case chat.EventRetrying:
		s.stopWaiting()
		s.endThinking()
		s.retrying(ev)
	case chat.EventReasoning:
		s.stopWaiting()
		s.reasoning(ev.Text)
	case chat.EventDelta:
		s.stopWaiting()
		s.delta(ev.Text)
	case chat.EventUsage:
		s.res.Usage.Add(ev.Usage)
	case chat.EventFinished:
		s.res.FinishReason = ev.FinishReason
	case chat.EventFailed:
		s.res.heldSince = ev.SaidAt
	}
	if ev.Terminal() {
		s.res.NotStored, s.res.Model, s.notes = ev.NotStored, ev.Model, chat.RunNotes(ev)
	}
}

// started counts a request, and on a terminal starts showing the wait for its first word.
func (s *stream) started() {
	s.res.Attempts++
	if s.v.stderrTerminal && !s.res.gotOutput {
		s.sent = time.Now()
		if s.tick == nil {
			s.tick = time.NewTicker(time.Second)
		}
	}
}

// retrying says that Tier 1 waits before its next attempt, and why.
func (s *stream) retrying(ev chat.Event) {
	if ev.BudgetSpent {
		now := time.Now()
		fmt.Fprintf(s.v.stderr, "parley: retry budget spent — next retry at %s\n", chat.FormatClockSeconds(now.Add(ev.Wait), now))
		return
	}
	fmt.Fprintf(s.v.stderr, "parley: %s — reconnecting, attempt %d/%d in %.1fs\n",
		sanitize.String(ev.Class.Label), ev.Attempt, ev.MaxAttempts, ev.Wait.Seconds())
}

// reasoning keeps thinking, and writes it to stderr with --show-reasoning: dim and
// neutralised on a terminal, raw elsewhere.
func (s *stream) reasoning(text string) {
	s.res.gotOutput = true
	s.thinking.WriteString(text)
	if !s.v.showReasoning {
		return
	}
	s.out.Flush()
	s.thinkingOpen = !strings.HasSuffix(text, "\n")
	if s.thinkSan == nil {
		io.WriteString(s.v.stderr, text)
		return
	}
	fmt.Fprintf(s.v.stderr, "\x1b[2m%s\x1b[22m", s.thinkSan.Clean(text))
}

// endThinking ends the line the thinking left open on stderr.
func (s *stream) endThinking() {
	if s.thinkingOpen {
		fmt.Fprintln(s.v.stderr)
		s.thinkingOpen = false
	}
}

// delta keeps answer text, and writes it to stdout unless the JSON object will carry it.
func (s *stream) delta(text string) {
	s.endThinking()
	s.res.gotOutput = true
	s.answer.WriteString(text)
	if s.v.jsonOut {
		return
	}
	if s.san != nil {
		text = s.san.Clean(text)
	}
	io.WriteString(s.out, text)
	if s.flush == nil {
		s.flush = time.After(flushAfter)
	}
}

// clearStatus takes the wait for the first word off the screen.
func (s *stream) clearStatus() {
	if s.statusShown {
		fmt.Fprint(s.v.stderr, "\r\x1b[K")
		s.statusShown = false
	}
}

// stopWaiting ends the wait for the first word: output, a Tier 1 wait or the end came.
func (s *stream) stopWaiting() {
	if s.tick != nil {
		s.tick.Stop()
		s.tick = nil
	}
	s.clearStatus()
}

// end finishes the output of a run that ended with o, and returns what it printed and the
// exit status.
func (s *stream) end(o chat.Outcome) (runOutput, int) {
	s.stopWaiting()
	s.out.Flush()
	s.endThinking()
	res := s.res
	res.Text, res.Reasoning = s.answer.String(), s.thinking.String()
	if c, ok := chat.ThoughtOut(res.FinishReason, res.Text, s.v.maxTokens, s.v.profile); ok && o.Status == chat.StatusSucceeded {
		// Stored as the endpoint ended it; reported as what it is to the script waiting for it.
		o = chat.Outcome{Status: chat.StatusFailed, Retry: &c}
	}
	if !s.v.jsonOut && s.v.stdoutTerminal && res.Text != "" && !strings.HasSuffix(res.Text, "\n") {
		fmt.Fprintln(s.v.stdout)
	}
	res.Status, res.Retry = o.Status, o.Retry
	res.Stored = res.NotStored == ""
	if !res.Stored {
		fmt.Fprintf(s.v.stderr, "parley: %s\n", sanitize.String(res.NotStored))
	}
	switch o.Status {
	case chat.StatusFailed:
		msg := sanitize.String(o.Retry.Label)
		if o.Retry.Message != "" {
			msg += " — " + sanitize.String(o.Retry.Message)
		}
		res.Error = &msg
	case chat.StatusSucceeded:
		if note := chat.FinishNote(res.FinishReason, res.Text); note != "" && res.FinishReason != "tool_calls" {
			fmt.Fprintf(s.v.stderr, "parley: %s\n", note)
		}
	}
	for _, note := range s.notes {
		fmt.Fprintf(s.v.stderr, "parley: %s\n", sanitize.String(note))
	}
	code := exitStatus(o)
	if code == chat.ExitOK && !res.Stored {
		code = chat.ExitNotStored
	}
	return res, code
}
