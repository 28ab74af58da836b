package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"

	"parley/agent"
	"parley/history"
	"parley/retry"
	"parley/tui"
)

// printFlush is how long streamed text may wait in print mode's output buffer.
const printFlush = 10 * time.Millisecond

// printResult is print mode's --json object.
type printResult struct {
	SessionID string                `json:"session_id"`
	RunID     int64                 `json:"run_id"`
	Status    history.RunStatus     `json:"status"`
	Text      string                `json:"text"`
	Attempts  int                   `json:"attempts"`
	Error     *string               `json:"error"`
	Retry     *retry.Classification `json:"retry"`
	Model     string                `json:"model"`
	Endpoint  string                `json:"endpoint"`
	Demo      bool                  `json:"demo"`
	Usage     agent.Usage           `json:"usage"`
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
	res := printResult{SessionID: sess.ID, RunID: rcpt.RunID, Model: ep.Model, Endpoint: ep.BaseURL, Demo: ep.Demo}
	toTerminal := term.IsTerminal(stdout.Fd())
	var san *tui.Sanitizer
	if toTerminal {
		san = new(tui.Sanitizer)
	}
	var text strings.Builder
	var last agent.Event
	// Text reaches stdout through a buffer flushed printFlush after it was written, so a fast
	// stream costs one write per batch rather than per delta.
	out := bufio.NewWriterSize(stdout, 32<<10)
	var flush <-chan time.Time
	events := a.db.Record(rcpt.RunID, a.budget.Stream(ctx, a.client, sess.ID, msgs), retry.SystemClock{})
	for {
		var ev agent.Event
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
		case agent.EventStarted:
			res.Attempts++
		case agent.EventCompacted:
			res.OmittedMessages = ev.Omitted
			fmt.Fprintf(stderr, "parley: %s\n", agent.OmittedNote(ev.Omitted))
		case agent.EventRetrying:
			fmt.Fprintf(stderr, "parley: %s — reconnecting, attempt %d/%d in %.1fs\n", ev.Class.Label, ev.Attempt, ev.MaxAttempts, ev.Wait.Seconds())
		case agent.EventDelta:
			text.WriteString(ev.Text)
			if !jsonOut {
				writeText(out, ev.Text, san)
				if flush == nil {
					flush = time.After(printFlush)
				}
			}
		case agent.EventUsage:
			res.Usage.PromptTokens += ev.Usage.PromptTokens
			res.Usage.CompletionTokens += ev.Usage.CompletionTokens
			res.Usage.Estimated = res.Usage.Estimated || ev.Usage.Estimated
		}
		last = ev
	}
	out.Flush()
	res.Text = text.String()
	res.CostUSD = a.budget.Prices.Of(ep.Model).Cost(res.Usage)
	if !jsonOut && toTerminal && text.Len() > 0 && !strings.HasSuffix(res.Text, "\n") {
		fmt.Fprintln(stdout)
	}
	code := exitOK
	switch last.Kind {
	case agent.EventFinished:
		res.Status = history.StatusSucceeded
	case agent.EventCancelled:
		res.Status = history.StatusCancelled
		code = exitInterrupted
	default:
		res.Status = history.StatusFailed
		cls := last.Class
		res.Retry = &cls
		msg := cls.Label
		if cls.Message != "" {
			msg += " — " + cls.Message
		}
		res.Error = &msg
		code = exitFailed
		if cls.Retryable {
			code = exitRetryable
		}
		fmt.Fprintf(stderr, "parley: %s (%s, run %d)\n", tui.Sanitize(msg), retryWord(cls), rcpt.RunID)
	}
	if jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.Encode(res)
	}
	return code
}

func retryWord(c retry.Classification) string {
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
func writeText(w io.Writer, s string, san *tui.Sanitizer) {
	if san != nil {
		s = san.Clean(s)
	}
	io.WriteString(w, s)
}
