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
	start := time.Now()
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
	fellBack, waits := false, 0
	for {
		res, code = printRun(ctx, a, client, rcpt, view)
		total.Attempts += res.Attempts
		total.Usage.Add(res.Usage)
		total.CostUSD += a.budget.Prices.Of(client.Endpoint().Model).Cost(res.Usage)
		if code != exitRetryable || res.output || ctx.Err() != nil {
			break
		}
		if !res.heldSince.IsZero() && po.wait == 0 {
			fmt.Fprintf(stderr, "parley: rate limited until %s (said at %s) — --wait to wait, --force to send anyway\n",
				agent.FormatClock(res.Retry.RetryAfterUntil, time.Now()), agent.FormatClock(res.heldSince, time.Now()))
		}
		var next *agent.Client
		switch {
		case po.fallback && a.fallback != nil && !fellBack:
			fellBack, next = true, a.fallback
			fmt.Fprintf(stderr, "parley: %s — sending to the fallback, %s\n", res.Retry.Label, next.Endpoint().Model)
		case po.wait > 0:
			waits++
			due := retry.Tier2Due(waits, *res.Retry, time.Now())
			if due.Sub(start) > po.wait-time.Second {
				fmt.Fprintf(stderr, "parley: still %s after waiting %s; the next retry would be at %s, past --wait\n",
					res.Retry.Label, agent.FormatElapsed(time.Since(start)), agent.FormatClock(due, time.Now()))
				break
			}
			if !waitUntil(ctx, due, waits, *res.Retry, view) {
				code = exitInterrupted
				break
			}
			next = client.AsRetryOf(*res.Retry)
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
	}
	ep = client.Endpoint()
	res.SessionID, res.RunID, res.Model, res.Endpoint, res.Demo = rcpt.SessionID, rcpt.RunID, ep.Model, ep.BaseURL, ep.Demo
	res.Attempts, res.Usage, res.CostUSD = total.Attempts, total.Usage, total.CostUSD
	if res.Error != nil && code != exitInterrupted {
		fmt.Fprintf(stderr, "parley: %s (%s, run %d)\n", *res.Error, retryWord(*res.Retry), rcpt.RunID)
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
	events := a.db.Record(rcpt.RunID, a.budget.Stream(ctx, client, rcpt.SessionID, msgs), chat.SystemClock{})
	return printEvents(events, v)
}

// waitUntil waits for Tier 2 retry n, due at due, saying so on stderr: a countdown redrawn
// each second on a terminal, one line otherwise. It reports false when ctx ended first.
func waitUntil(ctx context.Context, due time.Time, n int, c chat.Classification, v printView) bool {
	say := func(now time.Time) {
		left := due.Sub(now).Round(time.Second)
		when := fmt.Sprintf("in %s", agent.FormatElapsed(left))
		if left > retry.Tier2Cap {
			when = "after " + agent.FormatClock(due, time.Now())
		}
		fmt.Fprintf(v.stderr, "%sparley: %s — retrying %s (attempt %d) · ctrl+c stops", map[bool]string{true: "\r\x1b[K"}[v.stderrTerminal],
			c.Label, when, n)
		if !v.stderrTerminal {
			fmt.Fprintln(v.stderr)
		}
	}
	say(time.Now())
	timer := time.NewTimer(time.Until(due))
	defer timer.Stop()
	var tick <-chan time.Time
	if v.stderrTerminal {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		tick = t.C
		defer fmt.Fprint(v.stderr, "\r\x1b[K")
	}
	for {
		select {
		case <-ctx.Done():
			return false
		case <-timer.C:
			return true
		case now := <-tick:
			say(now)
		}
	}
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
