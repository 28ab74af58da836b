package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/charmbracelet/x/term"

	"parley/agent"
	"parley/history"
	"parley/internal/chat"
	"parley/internal/sanitize"
	"parley/retry"
)

// printResult is print mode's --json object.
type printResult struct {
	SessionID string `json:"session_id"`
	RunID     int64  `json:"run_id"`
	// Status and Retry are the last run's; Attempts counts the requests of every run.
	Status   chat.Status          `json:"status"`
	Text     string               `json:"text"`
	Attempts int                  `json:"attempts"`
	Error    *string              `json:"error"`
	Retry    *chat.Classification `json:"retry"`
	// Reasoning is the thinking the model streamed before its answer; FinishReason why the
	// reply ended ("length": at the token limit).
	Reasoning    string `json:"reasoning"`
	FinishReason string `json:"finish_reason"`
	Model        string `json:"model"`
	Endpoint     string `json:"endpoint"`
	Demo         bool   `json:"demo"`
	// Usage sums every run's; CostUSD prices it, 0 for a model without a price.
	Usage   chat.Usage `json:"usage"`
	CostUSD float64    `json:"cost_usd"`
	// OmittedMessages counts the earlier messages left out to fit the model's context.
	OmittedMessages int `json:"omitted_messages"`
}

// printOptions are print mode's own flags.
type printOptions struct {
	jsonOut, showReasoning bool
	// force sends even while endpoint memory holds the endpoint back.
	force bool
	// wait, when positive, is --wait's longest total wait for a retryable failure.
	wait time.Duration
	// fallback tries the profile's fallback once, after a retryable failure with no output.
	fallback bool
}

// printReply is print mode: the operator's message stored, then one run streamed to stdout
// (raw to a pipe, neutralised to a terminal), with Tier 1 inside it and held to the spend
// limits. A run that failed retryable before any output may be followed, on request, by one
// run on the fallback endpoint and by Tier 2's schedule within --wait; nothing is sent again
// after output. The exit status says whether trying again can help.
func printReply(ctx context.Context, a *app, sess history.Session, prompt string, po printOptions, stdout, stderr *os.File) int {
	clock := a.clock
	start := clock.Now()
	client := a.client
	if po.force {
		client = client.WithForce()
	}
	if po.wait > 0 {
		// --wait bounds the whole: Tier 1 starts no wait past it either, and leaves a second
		// for the last request.
		client = client.RetriesUntil(start.Add(po.wait - time.Second))
	}
	ep := client.Endpoint()
	if ep.Demo {
		fmt.Fprintln(stderr, "parley: using the offline demo endpoint (no provider configured; see README \"Endpoints\")")
	}
	if err := a.startSystem(&sess); err != nil {
		fmt.Fprintf(stderr, "parley: cannot store the system prompt: %v\n", err)
		return exitFailed
	}
	rcpt, err := a.db.Post(sess.ID, prompt, ep.Model, false)
	if err != nil {
		fmt.Fprintf(stderr, "parley: cannot store the message: %v\n", err)
		return exitFailed
	}
	view := printView{stdout: stdout, stderr: stderr, jsonOut: po.jsonOut, showReasoning: po.showReasoning,
		stdoutTerminal: term.IsTerminal(stdout.Fd()), stderrTerminal: term.IsTerminal(stderr.Fd())}
	var total printResult
	var res runOutput
	var code int
	// t2 is Tier 2's machine, driven here by --wait as the chat screen drives it by its
	// countdown: it arms only from the run as stored.
	var t2 retry.Tier2
	fellBack := false
	for {
		res, code = printRun(ctx, a, client, rcpt, view)
		t2.Ended(rcpt.RunID, res.Status)
		total.Attempts += res.Attempts
		total.Usage.Add(res.Usage)
		total.CostUSD += a.spend.Prices.Of(client.Endpoint().Model).Cost(res.Usage)
		if code != exitRetryable || res.gotOutput || ctx.Err() != nil {
			break
		}
		if !res.heldSince.IsZero() && po.wait == 0 {
			fmt.Fprintf(stderr, "parley: rate limited until %s (said at %s) — --wait to wait, --force to send anyway\n",
				chat.FormatClock(res.Retry.RetryAfterUntil, clock.Now()), chat.FormatClock(res.heldSince, clock.Now()))
		}
		var next *agent.Client
		switch {
		case po.fallback && a.fallback != nil && !fellBack && retry.FallbackOffered(*res.Retry):
			fellBack, next = true, a.fallback
			fmt.Fprintf(stderr, "parley: %s — sending to the fallback, %s\n", sanitize.String(res.Retry.Label), next.Endpoint().Model)
		case po.wait > 0:
			stored, err := a.db.Run(rcpt.RunID)
			if err != nil {
				fmt.Fprintf(stderr, "parley: cannot read the failed run back: %v\n", err)
				return exitFailed
			}
			if !t2.Arm(stored.Result(), clock.Now()) {
				break
			}
			if t2.Due().Sub(start) > po.wait-time.Second {
				fmt.Fprintf(stderr, "parley: still %s after waiting %s; the next retry would be at %s, past --wait\n",
					sanitize.String(res.Retry.Label), chat.FormatElapsed(clock.Now().Sub(start)), chat.FormatClock(t2.Due(), clock.Now()))
				break
			}
			if !waitUntil(ctx, clock, &t2, view) {
				code = exitInterrupted
				break
			}
			next = client.AsRetryOf(*stored.Retry)
		}
		if next == nil {
			break
		}
		client = next
		// The previous run produced nothing: the retry takes its place only if it does.
		if rcpt, err = a.db.Retry(rcpt.AnchorID, client.Endpoint().Model, false); err != nil {
			fmt.Fprintf(stderr, "parley: cannot store the retry: %v\n", err)
			return exitFailed
		}
		t2.Sent(t2.Token(), rcpt.RunID)
	}
	ep = client.Endpoint()
	res.SessionID, res.RunID, res.Model, res.Endpoint, res.Demo = rcpt.SessionID, rcpt.RunID, ep.Model, ep.BaseURL, ep.Demo
	res.Attempts, res.Usage, res.CostUSD = total.Attempts, total.Usage, total.CostUSD
	if res.Error != nil && code != exitInterrupted {
		fmt.Fprintf(stderr, "parley: %s (%s, run %d)\n", *res.Error, retryWord(*res.Retry, clock.Now()), rcpt.RunID)
	}
	if po.jsonOut {
		writeJSON(stdout, res.printResult)
	}
	return code
}

// printRun streams the run of rcpt on client, stored as it goes.
func printRun(ctx context.Context, a *app, client *agent.Client, rcpt history.Receipt, v printView) (runOutput, int) {
	msgs, err := a.db.Context(rcpt.AnchorID)
	if err != nil {
		fmt.Fprintf(v.stderr, "parley: cannot read the session: %v\n", err)
		return runOutput{}, exitFailed
	}
	events := a.db.Record(rcpt.RunID, a.spend.Stream(ctx, client, rcpt.SessionID, msgs), chat.SystemClock{})
	return printEvents(events, v)
}

// waitUntil waits for the retry t armed, saying so on stderr: a countdown redrawn each
// second on a terminal, one line otherwise. It reports false when ctx ended first.
func waitUntil(ctx context.Context, clock chat.Clock, t *retry.Tier2, v printView) bool {
	if v.stderrTerminal {
		defer fmt.Fprint(v.stderr, "\r\x1b[K")
	}
	token := t.Token()
	for shown := false; ; {
		now := clock.Now()
		fire, next := t.Tick(token, now)
		if fire {
			return true
		}
		if v.stderrTerminal || !shown {
			line := "parley: " + sanitize.String(t.Waiting(now)) + " · ctrl+c stops"
			if v.stderrTerminal {
				fmt.Fprint(v.stderr, "\r\x1b[K"+line)
			} else {
				fmt.Fprintln(v.stderr, line)
			}
			shown = true
		}
		if !v.stderrTerminal {
			next = t.Due().Sub(now)
		}
		select {
		case <-ctx.Done():
			return false
		case <-clock.After(next):
		}
	}
}

func retryWord(c chat.Classification, now time.Time) string {
	if !c.Retryable {
		return "not retryable"
	}
	if !c.RetryAfterUntil.IsZero() {
		return "retryable after " + chat.FormatClockSeconds(c.RetryAfterUntil, now)
	}
	return "retryable"
}
