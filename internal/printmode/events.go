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
	"parley/retry"
)

// flushAfter is how long streamed text may wait in print mode's output buffer.
const flushAfter = 10 * time.Millisecond

// view is where one run's events go in print mode, and how.
type view struct {
	stdout, stderr io.Writer
	// jsonOut keeps the answer off stdout until the JSON object; showReasoning writes the
	// thinking to stderr.
	jsonOut, showReasoning bool
	// stderrTerminal counts, on a terminal stderr, the wait for the first word and the
	// thinking not shown. Stderr, and stdout on a terminal, neutralise what is written
	// there (Options.Stdout).
	stderrTerminal bool
	// clock times those counts; nil is the real clock.
	clock chat.Clock
	// maxTokens and profile are the endpoint's, for the fix of a reply that thought until the
	// token limit (chat.ThoughtOut).
	maxTokens int
	profile   string
	// renderWidth, when set, renders the answer's markdown at that width (markdown.go).
	renderWidth int
	// idleDeadline is how long the endpoint's stream may send nothing after its first output
	// before the reply ends as a timeout (agent.Endpoint.StreamIdleDeadline).
	idleDeadline time.Duration
}

// printEvents streams a run's events as print mode shows them: the answer to stdout (unless
// jsonOut), thinking to stderr with --show-reasoning, Tier 1's notes and the wait for the
// first word to stderr. It returns what the --json object
// says of the run and the exit status, both from chat.Decide.
func printEvents(events <-chan chat.Event, v view) (runOutput, int) {
	s := newStream(v)
	defer s.stopStatus()
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
	// answer and thinking are the text so far; san and thinkSan neutralise them, carrying a
	// sequence split across deltas from one to the next, where they are drawn around
	// (rendered, dim) and so go under the streams' neutraliser.
	answer, thinking strings.Builder
	san, thinkSan    *sanitize.Stream
	// out buffers stdout: text is flushed flushAfter after it was written, so a fast stream
	// costs one write per batch rather than per delta.
	out   *bufio.Writer
	flush <-chan time.Time
	// status, on a terminal stderr, counts what the run waits for (waitingLine, thinkingLine)
	// from since, redrawn on each tick, a second apart; nil tick counts nothing. statusShown
	// says the line is on screen.
	status      string
	since       time.Time
	tick        <-chan time.Time
	statusShown bool
	// thinkingOpen is set while thinking written to stderr has not ended its line: anything
	// else said there starts on a line of its own.
	thinkingOpen bool
	// lastText is when the run last showed something (text, thinking, a tool); silence fires
	// once SilenceShown may have passed since, and silenceSaid says the silence since was said.
	lastText    time.Time
	silence     <-chan time.Time
	silenceSaid bool
	// notes are what the run's end says beyond its outcome (chat.RunNotes).
	notes []string
	// md renders the answer as markdown; nil writes it as it comes.
	md *rendered
}

// The lines that count what a run waits for, with the time so far.
const (
	waitingLine  = "waiting for the reply · %s · ctrl+c cancels"
	thinkingLine = "thinking… %s · ctrl+c cancels"
)

func newStream(v view) *stream {
	if v.clock == nil {
		v.clock = chat.SystemClock{}
	}
	s := &stream{v: v, out: bufio.NewWriterSize(v.stdout, 32<<10)}
	if v.renderWidth > 0 && !v.jsonOut {
		s.md = &rendered{width: v.renderWidth}
		s.san = new(sanitize.Stream)
		s.out = bufio.NewWriterSize(sanitize.Raw(v.stdout), 32<<10)
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
		select {
		case ev, ok = <-events:
			return ev, ok
		case <-s.flush:
			s.flush = nil
			s.out.Flush()
		case now := <-s.silence:
			s.silent(now)
		case now := <-s.tick:
			fmt.Fprintf(sanitize.Raw(s.v.stderr), "\r\x1b[K"+s.status, chat.FormatElapsed(now.Sub(s.since)))
			s.statusShown = true
			s.tick = s.v.clock.After(time.Second)
		}
	}
}

// The line print mode writes once on stderr when a reply that began goes silent, with how
// long until the silence ends it (the chat screen counts it instead: no text for 45s).
const silentLine = "parley: no text for %s · the reply ends as a timeout after %s of silence · ctrl+c cancels\n"

// shown notes that the run showed something: text, thinking or a tool. After its first output
// a silence is watched for.
func (s *stream) shown() {
	s.lastText, s.silenceSaid = s.v.clock.Now(), false
	if s.silence == nil && s.res.gotOutput {
		s.silence = s.v.clock.After(chat.SilenceShown)
	}
}

// silent is the silence watch firing at now: one line on stderr when nothing was shown for
// SilenceShown, else a watch for the rest of it.
func (s *stream) silent(now time.Time) {
	s.silence = nil
	quiet := now.Sub(s.lastText)
	if quiet < chat.SilenceShown {
		s.silence = s.v.clock.After(chat.SilenceShown - quiet)
		return
	}
	if s.silenceSaid {
		return
	}
	s.silenceSaid = true
	s.out.Flush()
	s.endThinking()
	s.clearStatus()
	fmt.Fprintf(s.v.stderr, silentLine, chat.FormatElapsed(quiet), typed(s.v.idleDeadline))
}

// handle shows one event and notes what the --json object says of it.
func (s *stream) handle(ev chat.Event) {
	switch ev.Kind {
	case chat.EventDelta, chat.EventReasoning, chat.EventToolCall, chat.EventToolResult:
		defer s.shown()
	}
	switch ev.Kind {
	case chat.EventStarted:
		s.started()
	case chat.EventCompacted:
		s.clearStatus()
		s.res.OmittedMessages = ev.Omitted
		fmt.Fprintf(s.v.stderr, "parley: %s\n", agent.OmittedNote(ev))
	case chat.EventRetrying:
		s.stopStatus()
		s.endThinking()
		s.retrying(ev)
	case chat.EventReasoning:
		s.reasoning(ev.Text)
	case chat.EventDelta:
		s.stopStatus()
		s.delta(ev.Text)
	case chat.EventUsage:
		s.res.Usage.Add(ev.Usage)
	case chat.EventFinished:
		s.res.FinishReason = ev.FinishReason
	case chat.EventFailed:
		s.res.heldSince = ev.SaidAt
		if ev.GatewayRetries > 0 {
			s.res.GatewayAttempts += ev.GatewayRetries + 1
		}
	case chat.EventToolResult:
		s.toolResult(ev)
	}
	if ev.Terminal() {
		s.res.NotStored, s.res.Model, s.notes = ev.NotStored, ev.Model, chat.RunNotes(ev, "--allow-tool SERVER.TOOL runs one")
	}
}

// started counts a request, and on a terminal starts counting the wait for its first word.
func (s *stream) started() {
	s.res.Attempts++
	if !s.res.gotOutput {
		s.count(waitingLine)
	}
}

// count starts counting, on a terminal stderr, what line says the run waits for, from now:
// the line shows at the next tick, each second, that of a count before it or a new one.
func (s *stream) count(line string) {
	if !s.v.stderrTerminal {
		return
	}
	s.status, s.since = line, s.v.clock.Now()
	if s.tick == nil {
		s.tick = s.v.clock.After(time.Second)
	}
}

// retrying says that Tier 1 waits before its next attempt, and why.
func (s *stream) retrying(ev chat.Event) {
	now := s.v.clock.Now()
	fmt.Fprintf(s.v.stderr, "parley: %s\n", sanitize.String(retry.Reconnecting(ev, now.Add(ev.Wait), now)))
}

// reasoning keeps thinking, and writes it to stderr with --show-reasoning, dim on a terminal.
func (s *stream) reasoning(text string) {
	s.res.gotOutput = true
	s.thinking.WriteString(text)
	if !s.v.showReasoning {
		if s.status != thinkingLine {
			s.clearStatus()
			s.count(thinkingLine)
		}
		return
	}
	s.stopStatus()
	s.out.Flush()
	s.thinkingOpen = !strings.HasSuffix(text, "\n")
	if s.thinkSan == nil {
		io.WriteString(s.v.stderr, text)
		return
	}
	fmt.Fprintf(sanitize.Raw(s.v.stderr), "\x1b[2m%s\x1b[22m", s.thinkSan.Clean(text))
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
	if s.md != nil {
		s.md.add(s.out, s.san.Clean(text))
	} else {
		io.WriteString(s.out, text)
	}
	if s.flush == nil {
		s.flush = time.After(flushAfter)
	}
}

// clearStatus takes the counting line off the screen; it shows again at the next tick.
func (s *stream) clearStatus() {
	if s.statusShown {
		fmt.Fprint(sanitize.Raw(s.v.stderr), "\r\x1b[K")
		s.statusShown = false
	}
}

// stopStatus ends the count: the answer, a Tier 1 wait or the end came.
func (s *stream) stopStatus() {
	s.status, s.tick = "", nil
	s.clearStatus()
}

// end finishes the output of a run that ended with o, and returns what it printed and the
// exit status.
func (s *stream) end(o chat.Outcome) (runOutput, int) {
	s.stopStatus()
	if s.md != nil {
		s.md.end(s.out)
	}
	s.out.Flush()
	s.endThinking()
	res := s.res
	res.Text, res.Reasoning = s.answer.String(), s.thinking.String()
	if c, ok := chat.ThoughtOut(res.FinishReason, res.Text, s.v.maxTokens, s.v.profile); ok && o.Status == chat.StatusSucceeded {
		// Stored as the endpoint ended it; reported as what it is to the script waiting for it.
		o = chat.Outcome{Status: chat.StatusFailed, Retry: &c}
	}
	if !s.v.jsonOut && s.md == nil && res.Text != "" && !strings.HasSuffix(res.Text, "\n") {
		// A reply ends its last line: a shell prompt, or what a script appends, starts on a
		// line of its own.
		fmt.Fprintln(s.v.stdout)
	}
	res.Status, res.Retry = o.Status, o.Retry
	res.Stored = res.NotStored == ""
	if !res.Stored {
		fmt.Fprintf(s.v.stderr, "parley: %s\n", sanitize.String(res.NotStored))
	}
	switch o.Status {
	case chat.StatusFailed:
		res.Error = errorLine(*o.Retry)
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
