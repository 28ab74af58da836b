// Package printmode is parley's second front end, beside the chat screen: one reply to one
// prompt, streamed to stdout (raw to a pipe, neutralised on a terminal) and stored as it
// goes, with Tier 1 inside the run, and on request Tier 2's schedule (--wait) and one run on
// the fallback; the exit status says whether trying again can help.
package printmode

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"time"

	"parley/agent"
	"parley/history"
	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/sanitize"
	"parley/internal/toolloop"
	"parley/retry"
)

// Options is what print mode needs to run. The flags' fields are filled by parsing parley's
// flags; the rest by the wiring.
type Options struct {
	// DB stores the message and its runs as they stream.
	DB *history.DB
	// Client sends to the endpoint; Fallback, nil for none, is the profile's fallback.
	Client, Fallback *agent.Client
	// Spend holds every run to the spend limits and prices what the runs used.
	Spend *agent.SpendGuard
	// Session is the session the prompt goes to; a new one has no id yet.
	Session stored.Session
	// System is the system prompt parley started with; SystemExplicit says it was asked for
	// (--role, --system), so that it applies to a session that has messages too.
	System         stored.SystemPrompt
	SystemExplicit bool
	// Prompt is the operator message: the prompt, piped text and attachments composed;
	// Images are the images it carries.
	Prompt string
	Images []chat.Image
	// Stdout takes the reply, Stderr parley's notes; each Terminal field says whether its
	// stream is a terminal, where waits are redrawn. Stderr, and Stdout on a terminal, are
	// written through sanitize's neutraliser (a sanitize.Writer given is kept); what print
	// mode draws itself goes under it (sanitize.Raw).
	Stdout, Stderr                 io.Writer
	StdoutTerminal, StderrTerminal bool
	// RenderWidth, when set, renders the answer's markdown for the terminal stdout is, at that
	// width, as the chat screen does; 0 writes it as the model sent it (piped, or --raw).
	RenderWidth int
	// Clock times --wait.
	Clock chat.Clock

	// JSON prints one JSON object at the end instead of the reply (--json).
	JSON bool
	// ShowReasoning writes the model's thinking to stderr (--show-reasoning).
	ShowReasoning bool
	// Force sends even while endpoint memory holds the endpoint back (--force).
	Force bool
	// Wait, when positive, is --wait's longest total wait for a retryable failure.
	Wait time.Duration
	// UseFallback tries the fallback once after a retryable failure with no output
	// (--fallback).
	UseFallback bool
	// Continue goes on from where the session's last reply was cut (--continue): no prompt
	// is stored, and stdout gets what follows the cut.
	Continue bool
	// Tools are the session's tools, nil for none. A tool runs only when AllowTools names it
	// (SERVER.TOOL, or its server) or AllowAllTools lets every one run (--allow-tool,
	// --allow-tools); any other call is refused, the refusal sent back as its result.
	Tools         *toolloop.Toolbox
	AllowTools    []string
	AllowAllTools bool
}

// demoNote is said on stderr when the reply comes from the offline demo endpoint.
const demoNote = "using the offline demo endpoint (no provider configured; see docs/configuration.md)"

// errInterrupted ends a wait that ctrl+c stopped.
var errInterrupted = errors.New("interrupted")

// Run is print mode: the operator's message stored, then one run streamed to stdout, with
// Tier 1 inside it and held to the spend limits. A run that failed retryable before any output
// may be followed, on request, by one run on the fallback and by Tier 2's schedule within
// Wait; nothing is sent again after output. It returns the exit status.
func Run(ctx context.Context, o Options) int {
	// A stdout that closes (| head) ends the run as cancelled, like ctrl+c; one that fails
	// otherwise (a full disk) does not: the reply is paid for, and stored whole. It is watched
	// under the neutraliser, so that what print mode draws there itself is watched too.
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	stdout := &watched{w: sanitize.Raw(o.Stdout), closed: func() { stop(errStdoutClosed) }}
	o.Stdout = stdout
	if o.StdoutTerminal {
		o.Stdout = sanitize.NewWriter(o.Stdout)
	}
	o.Stderr = sanitize.NewWriter(o.Stderr)
	p := &printer{o: o, start: o.Clock.Now(), client: o.Client}
	if o.Force {
		p.client = p.client.WithForce()
	}
	if o.Wait > 0 {
		// --wait bounds the whole: Tier 1 starts no wait past it either, and leaves a second
		// for the last request.
		p.client = p.client.RetriesUntil(p.start.Add(o.Wait - time.Second))
	}
	if p.client.Endpoint().Demo {
		p.say("%s", demoNote)
	}
	post := p.post
	if o.Continue {
		post = p.continueLast
	}
	if err := post(); err != nil {
		var busy *storeError
		if errors.As(err, &busy) {
			return p.failed(err, &chat.Classification{Label: "History busy", Retryable: true}, chat.ExitRetryable)
		}
		return p.failed(err, nil, chat.ExitFailed)
	}
	res, code, err := p.runAll(ctx)
	if err != nil {
		return p.failed(err, nil, chat.ExitFailed)
	}
	if c := TimedOut(ctx); c != nil {
		// Whatever --timeout stopped, a run or a wait: sending again, with more time, can help.
		res.Status, res.Retry, res.Error, code = chat.StatusFailed, c, errorLine(*c), chat.ExitRetryable
	}
	p.discardUnsent()
	code = p.report(res, code)
	if errors.Is(context.Cause(ctx), errStdoutClosed) {
		return chat.ExitStdoutClosed
	}
	if stdout.err != nil {
		if res.Stored && res.Status == chat.StatusSucceeded {
			p.say("cannot write the reply to stdout: %v; it is stored whole: parley export %s prints it", stdout.err, shortSession(p.rcpt.SessionID))
		} else {
			p.say("cannot write the reply to stdout: %v", stdout.err)
		}
		return max(code, chat.ExitFailed)
	}
	return code
}

// errStdoutClosed is why a run ends when nothing reads stdout any more.
var errStdoutClosed = errors.New("stdout was closed")

// watched is stdout, telling closed once a write to it finds the pipe closed: nobody reads it
// any more. Any other failure is kept in err, and what comes after it is dropped, so that the
// run goes on to the history.
type watched struct {
	w      io.Writer
	closed func()
	err    error
}

func (w *watched) Write(p []byte) (int, error) {
	if w.err != nil {
		return len(p), nil
	}
	n, err := w.w.Write(p)
	switch {
	case err == nil:
	case errors.Is(err, syscall.EPIPE):
		w.err = err
		w.closed()
	default:
		w.err = err
		return len(p), nil
	}
	return n, err
}

// printer is one print-mode invocation as it goes.
type printer struct {
	o     Options
	start time.Time
	// client sends the next run; rcpt is the stored run being sent, or the last one.
	client *agent.Client
	rcpt   stored.Receipt
	// total sums what every run spent and how many requests they made.
	total result
	// t2 is Tier 2's machine, driven here by --wait as the chat screen drives it by its
	// countdown: it arms only from the run as stored.
	t2       retry.Tier2
	fellBack bool
}

// failed says err, which ended the invocation with nothing sent or kept, on stderr and in the
// --json object, and returns code.
func (p *printer) failed(err error, c *chat.Classification, code int) int {
	p.say("%v", err)
	if p.o.JSON {
		id := p.rcpt.SessionID
		if id == "" {
			id = p.o.Session.ID
		}
		WriteFailed(p.o.Stdout, id, sanitize.String(err.Error()), c)
	}
	return code
}

// say writes one of parley's notes to stderr.
func (p *printer) say(format string, a ...any) {
	fmt.Fprintf(p.o.Stderr, "parley: "+format+"\n", a...)
}

// post stores the system prompt, when one applies, and the operator's message with a queued
// run for it: both before anything is sent.
func (p *printer) post() error {
	sess, o := p.o.Session, p.o
	if o.System.Text != "" && (o.SystemExplicit || sess.Messages == 0) {
		if sess.ID == "" {
			s, err := o.DB.CreateSession()
			if err != nil {
				return fmt.Errorf("cannot store the system prompt: %v", err)
			}
			sess = s
		}
		if _, err := o.DB.PostSystem(sess.ID, o.System); err != nil {
			return fmt.Errorf("cannot store the system prompt: %v", err)
		}
	}
	model := p.client.Endpoint().Model
	rcpt, err := o.DB.Post(sess.ID, o.Prompt, model, false, o.Images...)
	switch fault := history.FaultOf(err); {
	case err == nil:
	case fault.Transient():
		return &storeError{fmt.Errorf("cannot store the message: %w", err)}
	default:
		// The database cannot take it (full, read-only, damaged): the message is kept, synced,
		// in the recovery file instead, and sent; the reply is kept with it.
		cause := err
		if rcpt, err = o.DB.PostToRecovery(sess.ID, o.Prompt, model, cause, o.Images...); err != nil {
			return fmt.Errorf("cannot store the message: %v", err)
		}
		p.say("the message could not be stored (%v); it is kept in the recovery file and sent anyway", cause)
	}
	p.rcpt = rcpt
	// The session runs on this profile and model when continued (-c, --session); the
	// fallback, a stand-in, is not remembered. A profile of none (flags, the demo) is not.
	if ep := p.client.Endpoint(); ep.Profile() != "" && !ep.Demo && rcpt.RunID > 0 {
		if err := o.DB.SetSessionModel(rcpt.SessionID, ep.Profile(), ep.Model); err != nil {
			p.say("cannot store the session's model: %v", err)
		}
	}
	return nil
}

// storeError is a failure to store that waiting can cure: another parley holds the lock.
type storeError struct{ err error }

func (e *storeError) Error() string { return e.err.Error() }

// runAll streams runs until one needs nothing after it: the first, and those that follow a
// retryable failure with no output (again). It returns the last run's output and exit status;
// err when the history could not store or read a run.
func (p *printer) runAll(ctx context.Context) (runOutput, int, error) {
	for {
		res, code := p.runOne(ctx)
		if code != chat.ExitRetryable || res.gotOutput || ctx.Err() != nil {
			return res, code, nil
		}
		next, err := p.again(ctx, res)
		if errors.Is(err, errInterrupted) {
			return res, chat.ExitInterrupted, nil
		}
		if err != nil || next == nil {
			return res, code, err
		}
		p.client = next
		// The previous run produced nothing after its last tool result: the retry takes its
		// place only if it does, resumed from the stored results when it called tools.
		if p.rcpt, err = p.o.DB.RetryRun(p.rcpt.RunID, next.Endpoint().Model, false); err != nil {
			return res, code, fmt.Errorf("cannot store the retry: %v", err)
		}
		p.t2.Sent(p.t2.Token(), p.rcpt.RunID)
	}
}

// runOne streams the run of p.rcpt on p.client, stored as it goes, and counts what it spent.
func (p *printer) runOne(ctx context.Context) (runOutput, int) {
	msgs, progress, err := p.context()
	if err != nil {
		p.say("cannot read the session: %v", err)
		return runOutput{}, chat.ExitFailed
	}
	// The recorder batches its writes on the real clock: Clock times only --wait.
	events := p.o.DB.Record(p.rcpt.RunID, p.stream(ctx, msgs, progress), chat.SystemClock{})
	res, code := printEvents(events, p.view())
	p.t2.Ended(p.rcpt.RunID, res.Status)
	p.total.Attempts += res.Attempts
	p.total.GatewayAttempts += res.GatewayAttempts
	p.total.Usage.Add(res.Usage)
	p.total.ToolCalls = append(p.total.ToolCalls, res.ToolCalls...)
	p.total.CostUSD += p.o.Spend.Prices.Of(p.client.Endpoint().Model).Cost(res.Usage)
	return res, code
}

// context is the conversation the run sends: up to its anchor and what the run has done so
// far (history.RunContext), or, for a message the database could not store, the session's with
// it at the end.
func (p *printer) context() ([]chat.Message, stored.Progress, error) {
	if p.rcpt.RunID >= 0 {
		return p.o.DB.RunContext(p.rcpt.RunID)
	}
	msgs, err := p.o.DB.SessionContext(p.rcpt.SessionID)
	if err != nil {
		return nil, stored.Progress{}, err
	}
	return append(msgs, chat.Message{Role: chat.RoleUser, Content: p.o.Prompt, Images: p.o.Images}), stored.Progress{}, nil
}

func (p *printer) view() view {
	o, ep := p.o, p.client.Endpoint()
	return view{stdout: o.Stdout, stderr: o.Stderr, jsonOut: o.JSON, showReasoning: o.ShowReasoning,
		stderrTerminal: o.StderrTerminal, maxTokens: ep.MaxTokens, profile: ep.Profile(),
		renderWidth: o.RenderWidth, idleDeadline: ep.StreamIdleDeadline()}
}

// again chooses what follows a run that failed retryable with no output: the fallback, once,
// when asked for and offered for the failure; else, with --wait, the same endpoint once Tier
// 2's wait is over. It returns nil when nothing follows, and errInterrupted when ctrl+c
// stopped the wait.
func (p *printer) again(ctx context.Context, res runOutput) (*agent.Client, error) {
	now := p.o.Clock.Now()
	if !res.heldSince.IsZero() && p.o.Wait == 0 {
		// Held back, nothing sent: endpoint memory (a provider's wait) or pacing (its limits).
		what, until := "rate limited", chat.FormatClock(res.Retry.RetryAfterUntil, now)
		if res.Retry.Rule == "endpoint.pacing" { // a limit that refills in seconds
			what, until = sanitize.String(res.Retry.Label), chat.FormatClockSeconds(res.Retry.RetryAfterUntil, now)
		}
		p.say("%s until %s (said at %s) — --wait to wait, --force to send anyway", what, until, chat.FormatClock(res.heldSince, now))
	}
	switch {
	case p.o.UseFallback && p.o.Fallback != nil && !p.fellBack && retry.FallbackOffered(*res.Retry):
		p.fellBack = true
		p.say("%s — sending to the fallback, %s", sanitize.String(res.Retry.Label), p.o.Fallback.Endpoint().Model)
		return p.o.Fallback, nil
	case p.o.Wait > 0:
		return p.waitAndRetry(ctx, res)
	}
	return nil, nil
}

// waitAndRetry arms Tier 2 from the failed run as stored and waits until the retry is due,
// within --wait. It returns the client to send the retry with, or nil when none may be sent.
func (p *printer) waitAndRetry(ctx context.Context, res runOutput) (*agent.Client, error) {
	stored, err := p.o.DB.Run(p.rcpt.RunID)
	if err != nil {
		return nil, fmt.Errorf("cannot read the failed run back: %v", err)
	}
	clock := p.o.Clock
	if !p.t2.Arm(stored.Result(), clock.Now()) {
		return nil, nil
	}
	if p.t2.Due().Sub(p.start) > p.o.Wait-time.Second {
		now := clock.Now()
		p.say("still %s%s after waiting %s; the next retry would be at %s, past --wait",
			sanitize.String(res.Retry.Label), sanitize.String(routeNote(p.client.Endpoint().RouteLabel())),
			chat.FormatElapsed(now.Sub(p.start)), chat.FormatClock(p.t2.Due(), now))
		return nil, nil
	}
	if !Countdown(ctx, clock, &p.t2, p.o.Stderr, p.o.StderrTerminal, p.client.Endpoint().RouteLabel()) {
		return nil, errInterrupted
	}
	return p.client.AsRetryOf(*stored.Retry).SingleRequest(), nil
}

// discardUnsent deletes the session this invocation created when none of its runs sent a
// request (no key, a provider's wait, a spend limit): nobody's conversation started. A session
// it continued keeps what it had, and the message, which is never taken back.
func (p *printer) discardUnsent() {
	if p.o.Session.ID != "" || p.total.Attempts > 0 || p.rcpt.RunID <= 0 {
		return
	}
	switch discarded, err := p.o.DB.DiscardUnsent(p.rcpt.SessionID); {
	case err != nil:
		p.say("the session %s, in which nothing was sent, is kept: %v", p.rcpt.SessionID, err)
	case discarded:
		p.rcpt = stored.Receipt{}
	}
}

// report completes the last run's output with the whole invocation's, says why it failed,
// prints the JSON object when asked, and returns the exit status.
func (p *printer) report(res runOutput, code int) int {
	ep := p.client.Endpoint()
	res.SessionID, res.RunID, res.Endpoint, res.Demo = p.rcpt.SessionID, p.rcpt.RunID, chat.RedactURL(ep.BaseURL), ep.Demo
	// A run that sent nothing was discarded with its new session (discardUnsent): nothing kept.
	res.Stored = res.Stored && p.rcpt.SessionID != ""
	switch {
	case res.Model == "":
		res.Model = ep.Model
	case res.Model != ep.Model:
		res.RequestedModel = ep.Model
	}
	res.Attempts, res.GatewayAttempts, res.Usage, res.CostUSD = p.total.Attempts, p.total.GatewayAttempts, p.total.Usage, p.total.CostUSD
	res.ToolCalls = append([]toolCallJSON{}, p.total.ToolCalls...)
	if res.Error != nil && code != chat.ExitInterrupted {
		// The session, as --session and export take it: a run's id counts every run of the
		// history, and says nothing to the operator.
		where := ""
		if p.rcpt.SessionID != "" {
			where = ", session " + shortSession(p.rcpt.SessionID)
		}
		p.say("%s (%s%s)", *res.Error, chat.FormatRetry(*res.Retry, p.o.Clock.Now()), where)
	}
	if p.o.JSON {
		chat.WriteJSON(p.o.Stdout, res.result)
	}
	return code
}

// FailBeforeRun reports a failure that came before any run was stored (asking the endpoint for
// its models): the line on stderr, the --json object when jsonOut, and the exit status the
// failure's classification gives.
func FailBeforeRun(stdout, stderr io.Writer, jsonOut bool, c chat.Classification, now time.Time) int {
	msg := errorLine(c)
	fmt.Fprintf(stderr, "parley: %s (%s)\n", *msg, chat.FormatRetry(c, now))
	if jsonOut {
		WriteFailed(stdout, "", *msg, &c)
	}
	return exitStatus(chat.Outcome{Status: chat.StatusFailed, Retry: &c})
}

// WriteFailed writes the --json object of an invocation that ended before any run was sent or
// kept (a usage or limit error, a failure before the run, a lock held): stored is false, msg
// says why, and sessionID is the session's when there is one.
func WriteFailed(w io.Writer, sessionID, msg string, c *chat.Classification) {
	chat.WriteJSON(w, result{SessionID: sessionID, Status: chat.StatusFailed, Error: &msg, Retry: c})
}

// shortSession is the start of a session id that --session, -c's list and export take.
func shortSession(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
