package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"

	"parley/agent"
	"parley/agent/chat"
	"parley/history"
	"parley/tui/sanitize"
)

// printFlush is how long streamed text may wait in print mode's output buffer.
const printFlush = 10 * time.Millisecond

// printResult is print mode's --json object.
type printResult struct {
	SessionID string               `json:"session_id"`
	RunID     int64                `json:"run_id"`
	Status    chat.Status          `json:"status"`
	Text      string               `json:"text"`
	Attempts  int                  `json:"attempts"`
	Error     *string              `json:"error"`
	Retry     *chat.Classification `json:"retry"`
	Model     string               `json:"model"`
	Endpoint  string               `json:"endpoint"`
	Demo      bool                 `json:"demo"`
	Usage     chat.Usage           `json:"usage"`
	// CostUSD prices Usage; 0 for a model without a price.
	CostUSD float64 `json:"cost_usd"`
	// OmittedMessages counts the earlier messages left out to fit the model's context.
	OmittedMessages int `json:"omitted_messages"`
}

// printReply is print mode: one run, its text streamed to stdout (raw to a pipe, with control
// sequences neutralised to a terminal), Tier 1 only, held to the spend limits, and an exit
// status that says whether trying again can help. Attempts counts the requests sent.
func printReply(ctx context.Context, a *app, sess history.Session, prompt string, jsonOut bool, stdout, stderr *os.File) int {
	ep := a.client.Endpoint()
	if ep.Demo {
		fmt.Fprintln(stderr, "parley: using the offline demo endpoint (no provider configured; see README \"Endpoints\")")
	}
	rcpt, err := a.db.Post(sess.ID, prompt, ep.Model, false)
	if err != nil {
		fmt.Fprintf(stderr, "parley: cannot store the message: %v\n", err)
		return exitFailed
	}
	msgs, err := a.db.Context(rcpt.AnchorID)
	if err != nil {
		fmt.Fprintf(stderr, "parley: cannot read the session: %v\n", err)
		return exitFailed
	}
	events := a.db.Record(rcpt.RunID, a.budget.Stream(ctx, a.client, sess.ID, msgs), chat.SystemClock{})
	res, code := printEvents(events, jsonOut, stdout, term.IsTerminal(stdout.Fd()), stderr)
	res.SessionID, res.RunID, res.Model, res.Endpoint, res.Demo = sess.ID, rcpt.RunID, ep.Model, ep.BaseURL, ep.Demo
	res.CostUSD = a.budget.Prices.Of(ep.Model).Cost(res.Usage)
	if res.Error != nil {
		fmt.Fprintf(stderr, "parley: %s (%s, run %d)\n", *res.Error, retryWord(*res.Retry), rcpt.RunID)
	}
	if jsonOut {
		writeJSON(stdout, res)
	}
	return code
}

func retryWord(c chat.Classification) string {
	if !c.Retryable {
		return "not retryable"
	}
	if !c.RetryAfterUntil.IsZero() {
		return "retryable after " + c.RetryAfterUntil.Local().Format("15:04:05")
	}
	return "retryable"
}

// writeText writes model output: raw to a pipe or file, neutralised to a terminal by san,
// which carries a sequence split across deltas from one to the next.
func writeText(w io.Writer, s string, san *sanitize.Stream) {
	if san != nil {
		s = san.Clean(s)
	}
	io.WriteString(w, s)
}

// printEvents streams a run's events as print mode shows them: the text to stdout (unless
// jsonOut; neutralised when stdout is a terminal), Tier 1's notes to stderr. It returns what
// the --json object says of the run, and the exit status, both from chat.Decide.
func printEvents(events <-chan chat.Event, jsonOut bool, stdout io.Writer, toTerminal bool, stderr io.Writer) (printResult, int) {
	var res printResult
	var san *sanitize.Stream
	if toTerminal {
		san = new(sanitize.Stream)
	}
	var text strings.Builder
	var last chat.Event
	ended := false
	// Text reaches stdout through a buffer flushed printFlush after it was written, so a fast
	// stream costs one write per batch rather than per delta.
	out := bufio.NewWriterSize(stdout, 32<<10)
	var flush <-chan time.Time
	for {
		var ev chat.Event
		var ok bool
		select {
		case ev, ok = <-events:
		case <-flush:
			flush = nil
			out.Flush()
			continue
		}
		if !ok {
			break
		}
		switch ev.Kind {
		case chat.EventStarted:
			res.Attempts++
		case chat.EventCompacted:
			res.OmittedMessages = ev.Omitted
			fmt.Fprintf(stderr, "parley: %s\n", agent.OmittedNote(ev.Omitted))
		case chat.EventRetrying:
			fmt.Fprintf(stderr, "parley: %s — reconnecting, attempt %d/%d in %.1fs\n",
				sanitize.String(ev.Class.Label), ev.Attempt, ev.MaxAttempts, ev.Wait.Seconds())
		case chat.EventDelta:
			text.WriteString(ev.Text)
			if !jsonOut {
				writeText(out, ev.Text, san)
				if flush == nil {
					flush = time.After(printFlush)
				}
			}
		case chat.EventUsage:
			res.Usage.Add(ev.Usage)
		}
		last, ended = ev, ev.Terminal()
	}
	out.Flush()
	res.Text = text.String()
	if !jsonOut && toTerminal && text.Len() > 0 && !strings.HasSuffix(res.Text, "\n") {
		fmt.Fprintln(stdout)
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
	return res, exitOK
}
