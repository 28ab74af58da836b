package main

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

// printFlush is how long streamed text may wait in print mode's output buffer.
const printFlush = 10 * time.Millisecond

// printView is where one run's events go in print mode, and how.
type printView struct {
	stdout, stderr io.Writer
	// jsonOut keeps the answer off stdout until the JSON object; showReasoning writes the
	// thinking to stderr.
	jsonOut, showReasoning bool
	// stdoutTerminal and stderrTerminal neutralise control sequences on a terminal, and on a
	// terminal stderr shows the time waited for the first word.
	stdoutTerminal, stderrTerminal bool
}

// runOutput is what one run printed, beyond printResult: for deciding what comes next.
type runOutput struct {
	printResult
	// gotOutput is set once answer or thinking arrived: nothing may then be sent again.
	gotOutput bool
	// heldSince is set when the run sent nothing because endpoint memory held it back: the
	// provider said so then.
	heldSince time.Time
}

// printEvents streams a run's events as print mode shows them: the answer to stdout (unless
// jsonOut; neutralised when stdout is a terminal), thinking to stderr with --show-reasoning,
// Tier 1's notes and the wait for the first word to stderr. It returns what the --json object
// says of the run and the exit status, both from chat.Decide.
func printEvents(events <-chan chat.Event, v printView) (runOutput, int) {
	var res runOutput
	var answer, thinking strings.Builder
	var san, thinkSan *sanitize.Stream
	if v.stdoutTerminal {
		san = new(sanitize.Stream)
	}
	if v.stderrTerminal {
		thinkSan = new(sanitize.Stream)
	}
	// Text reaches stdout through a buffer flushed printFlush after it was written, so a fast
	// stream costs one write per batch rather than per delta.
	out := bufio.NewWriterSize(v.stdout, 32<<10)
	var flush <-chan time.Time
	// The wait for the first word shows its elapsed time, a line redrawn each second.
	var tick *time.Ticker
	var sent time.Time
	statusShown := false
	clearStatus := func() {
		if statusShown {
			fmt.Fprint(v.stderr, "\r\x1b[K")
			statusShown = false
		}
	}
	stopWaiting := func() {
		if tick != nil {
			tick.Stop()
			tick = nil
		}
		clearStatus()
	}
	defer stopWaiting()
	var last chat.Event
	ended := false
	for {
		var ev chat.Event
		var ok bool
		var tickC <-chan time.Time
		if tick != nil {
			tickC = tick.C
		}
		select {
		case ev, ok = <-events:
		case <-flush:
			flush = nil
			out.Flush()
			continue
		case now := <-tickC:
			fmt.Fprintf(v.stderr, "\r\x1b[Kwaiting for the reply · %s · ctrl+c cancels", chat.FormatElapsed(now.Sub(sent)))
			statusShown = true
			continue
		}
		if !ok {
			break
		}
		switch ev.Kind {
		case chat.EventStarted:
			res.Attempts++
			if v.stderrTerminal && !res.gotOutput {
				sent = time.Now()
				if tick == nil {
					tick = time.NewTicker(time.Second)
				}
			}
		case chat.EventCompacted:
			clearStatus()
			res.OmittedMessages = ev.Omitted
			fmt.Fprintf(v.stderr, "parley: %s\n", agent.OmittedNote(ev.Omitted))
		case chat.EventRetrying:
			stopWaiting()
			if ev.BudgetSpent {
				fmt.Fprintf(v.stderr, "parley: retry budget spent — next retry at %s\n", chat.FormatClockSeconds(time.Now().Add(ev.Wait), time.Now()))
				break
			}
			fmt.Fprintf(v.stderr, "parley: %s — reconnecting, attempt %d/%d in %.1fs\n",
				sanitize.String(ev.Class.Label), ev.Attempt, ev.MaxAttempts, ev.Wait.Seconds())
		case chat.EventReasoning:
			stopWaiting()
			res.gotOutput = true
			thinking.WriteString(ev.Text)
			if v.showReasoning {
				out.Flush()
				writeDim(v.stderr, ev.Text, thinkSan)
			}
		case chat.EventDelta:
			stopWaiting()
			if v.showReasoning && thinking.Len() > 0 && answer.Len() == 0 && v.stderrTerminal {
				fmt.Fprintln(v.stderr)
			}
			res.gotOutput = true
			answer.WriteString(ev.Text)
			if !v.jsonOut {
				writeText(out, ev.Text, san)
				if flush == nil {
					flush = time.After(printFlush)
				}
			}
		case chat.EventUsage:
			res.Usage.Add(ev.Usage)
		case chat.EventFinished:
			res.FinishReason = ev.FinishReason
		case chat.EventFailed:
			res.heldSince = ev.SaidAt
		}
		last, ended = ev, ev.Terminal()
	}
	stopWaiting()
	out.Flush()
	res.Text, res.Reasoning = answer.String(), thinking.String()
	if !v.jsonOut && v.stdoutTerminal && answer.Len() > 0 && !strings.HasSuffix(res.Text, "\n") {
		fmt.Fprintln(v.stdout)
	}
	o := chat.Decide(last, ended)
	res.Status, res.Retry = o.Status, o.Retry
	switch o.Status {
	case chat.StatusCancelled:
		return res, exitInterrupted
	case chat.StatusFailed:
		msg := sanitize.String(o.Retry.Label)
		if o.Retry.Message != "" {
			msg += " — " + sanitize.String(o.Retry.Message)
		}
		res.Error = &msg
		if o.Retry.Retryable {
			return res, exitRetryable
		}
		return res, exitFailed
	}
	if note := chat.FinishNote(res.FinishReason, res.Text); note != "" {
		fmt.Fprintf(v.stderr, "parley: %s\n", note)
	}
	return res, exitOK
}

// writeText writes model output: raw to a pipe or file, neutralised to a terminal by san,
// which carries a sequence split across deltas from one to the next.
func writeText(w io.Writer, s string, san *sanitize.Stream) {
	if san != nil {
		s = san.Clean(s)
	}
	io.WriteString(w, s)
}

// writeDim writes thinking: dim and neutralised on a terminal (san set), raw elsewhere.
func writeDim(w io.Writer, s string, san *sanitize.Stream) {
	if san == nil {
		io.WriteString(w, s)
		return
	}
	fmt.Fprintf(w, "\x1b[2m%s\x1b[22m", san.Clean(s))
}
