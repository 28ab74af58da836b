package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/agent"
	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/markdown"
	"parley/internal/sanitize"
	"parley/internal/toolloop"
	"parley/tui/notify"
	"parley/tui/toolask"
	"parley/tui/transcript"
	"parley/tui/versions"
)

// This file owns the active run's lifecycle: start it, read its events in batches, show them,
// end it, cancel it. Posting and queueing are in outbox.go, rendering frames below.

// batchWindow is how long the reader gathers a run's deltas before handing them to the model
// in one message: a stream then costs one Update, render and View per frame, not per delta.
const batchWindow = frameInterval

// runs is the session's runs as the screen drives them: the active one, its stream on screen,
// and what waits behind it. Model embeds it; Tier 2's machine and the offer after a failure
// are beside it (waits.go).
type runs struct {
	// active is the run whose reply is streaming (or about to), nil when none is.
	active *activeRun
	// lastRunTag is the tag of the newest active run: each run started takes the next one,
	// and its messages carry it.
	lastRunTag int
	// runClients holds the runs sent with another client than the screen's (the fallback, or
	// a retry sent now despite a remembered wait), by run id.
	runClients map[int64]*agent.Client
	// resumed are the replies of retries resumed from stored tool results, by reply id, as
	// stored: shown from their first output with the text and calls they begin with.
	resumed map[int64]stored.Message
	// now is the clock's time at the last run event or spinner tick, for countdowns.
	now time.Time
	// framePending is set while a frameMsg is on its way; lastFrame is when the streaming
	// reply was last rendered, by the clock.
	framePending bool
	lastFrame    time.Time
	// drawFirst is set by a message that stopped or ended the run: the screen is drawn with
	// it before more markdown is rendered, which goes on in the next frame, so that esc's
	// effect never waits behind a frame's quota of rendering.
	drawFirst bool

	// queue holds stored runs waiting for the active one to end, oldest first.
	queue []stored.Receipt
	// outbox holds messages typed while an earlier one is being stored; posting one at a
	// time keeps them in the order they were typed. posting is set while a message or a
	// regeneration is being stored: the two never race in the database.
	outbox  []outgoing
	posting bool
	// held is set when a reply was stopped with messages queued behind it: they wait for
	// enter, or for the next message sent, instead of going out by themselves.
	held bool
	// runEnded is when a run last ended or was stopped, by the clock (see selectGuard).
	runEnded time.Time
	// quitAfterRun is set when the screen quits once the active run has ended and is stored.
	quitAfterRun bool
	// rereadWhenIdle is set when another process stored messages in the session while a reply
	// was being written here: the session is read again when it ends (session.go).
	rereadWhenIdle bool
}

// busy reports whether a new run has to queue: a run is active, or others wait before it.
func (r *runs) busy() bool {
	return r.active != nil || len(r.queue) > 0
}

// waitingToSend counts what waits to be sent: queued runs, and messages being stored.
func (r *runs) waitingToSend() int {
	n := len(r.queue) + len(r.outbox)
	if r.posting {
		n++
	}
	return n
}

// activeRun is the run whose reply is streaming (or about to).
type activeRun struct {
	// tag tells this run's messages from those of runs that were active before.
	tag  int
	rcpt stored.Receipt
	// client is the client the run is sent with: the screen's, or another (waits.go).
	client *agent.Client
	// cancel cancels the run's context; the run then ends with EventCancelled, which is
	// stored before it reaches the screen.
	cancel     context.CancelFunc
	cancelling bool
	// reconnecting is the EventRetrying of a Tier 1 retry, nil when there is none, and
	// reconnectAt is when its wait ends (zero when it is not waiting).
	reconnecting *chat.Event
	reconnectAt  time.Time
	// gotOutput is set once output (answer or thinking) has arrived: from then on nothing is
	// retried automatically.
	gotOutput bool
	// sentAt is when the attempt now waiting for its first word was sent, and lastText when
	// text last came after it, for the status line.
	sentAt, lastText time.Time
	// hidden is set while the run is a Tier 2 retry (history.Retry) that has had no output:
	// its reply is not on screen, and the reply it retries stays where it is until the
	// retry's first output takes its place.
	hidden bool
}

// endpoints are the clients runs are sent with. Model embeds them.
type endpoints struct {
	client *agent.Client
	// fallback is Options.Fallback; others are the other profiles' clients, which R offers.
	fallback *agent.Client
	others   []*agent.Client
}

// modelName returns the name of the model that new runs use.
func (e *endpoints) modelName() string {
	if e.client == nil {
		return ""
	}
	return e.client.Endpoint().Model
}

// startRun makes rcpt's run the active one and sends its request from a command: the
// request's context is the run's, its events are stored by history.Record before they reach
// the screen.
func (m *Model) startRun(rcpt stored.Receipt) tea.Cmd {
	m.lastRunTag++
	ctx, cancel := context.WithCancel(context.Background())
	m.active = &activeRun{tag: m.lastRunTag, rcpt: rcpt, cancel: cancel, hidden: rcpt.Pending}
	m.turn.Started(m.clock.Now())
	m.transcript.StartStreaming(rcpt.ReplyID)
	m.active.client = m.clientFor(rcpt.RunID, m.client)
	db, client, clock, tag, spend, sessionID, box := m.db, m.active.client, m.clock, m.lastRunTag, m.spend, m.session.ID, m.tools
	start := func() tea.Msg {
		var events <-chan chat.Event
		var toolErrs []string
		msgs, progress, err := db.RunContext(rcpt.RunID)
		switch {
		case ctx.Err() != nil:
			// Cancelled before its request was sent: it is stored cancelled and never sent.
			events = oneEvent(chat.Event{Kind: chat.EventCancelled})
		case err != nil:
			// Stored through Record like any failed run, so the database says why.
			events = oneEvent(chat.Event{Kind: chat.EventFailed,
				Class: chat.NewClassification(chat.BadRequest, "could not build the request: "+err.Error())})
		default:
			// The spend guard refuses a request that would pass a spend limit: the run then fails
			// as spend_limit_exceeded, which Tier 2 never arms for.
			var errs []error
			events, errs = toolloop.Start{Spend: spend, Client: client, Tools: box, Store: db, Gate: box.Gate,
				SessionID: sessionID, RunID: rcpt.RunID, Steps: progress.Steps, Seam: progress.Seam}.Stream(ctx, msgs)
			for _, err := range errs {
				toolErrs = append(toolErrs, err.Error())
			}
		}
		return runStartedMsg{tag: tag, events: db.Record(rcpt.RunID, events, clock), toolErrs: toolErrs}
	}
	return tea.Batch(start, m.spinner.Tick)
}

// oneEvent returns a closed channel holding ev: the events of a run that ends before it
// is sent.
func oneEvent(ev chat.Event) <-chan chat.Event {
	ch := make(chan chat.Event, 1)
	ch <- ev
	close(ch)
	return ch
}

// readEvents waits for the next event of the run tagged tag. After a delta of answer or
// thinking it goes on gathering text, each kind joined into one event, until batchWindow has
// passed; any other event ends the batch at once, so that retries and the end of the run show
// without delay, and a terminal event is never left behind.
func readEvents(tag int, ch <-chan chat.Event) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return runEventsMsg{tag: tag, ch: ch, closed: true}
		}
		if !isText(ev.Kind) {
			return runEventsMsg{tag: tag, events: []chat.Event{ev}, ch: ch}
		}
		var batch []chat.Event
		var text strings.Builder
		kind := ev.Kind
		text.WriteString(ev.Text)
		gathered := func(more ...chat.Event) []chat.Event {
			batch = append(batch, chat.Event{Kind: kind, Text: text.String()})
			return append(batch, more...)
		}
		window := time.NewTimer(batchWindow)
		defer window.Stop()
		for {
			select {
			case ev, ok = <-ch:
				switch {
				case !ok:
					return runEventsMsg{tag: tag, events: gathered(), ch: ch, closed: true}
				case !isText(ev.Kind):
					return runEventsMsg{tag: tag, events: gathered(ev), ch: ch}
				case ev.Kind != kind:
					batch = gathered()
					kind = ev.Kind
					text.Reset()
				}
				text.WriteString(ev.Text)
			case <-window.C:
				return runEventsMsg{tag: tag, events: gathered(), ch: ch}
			}
		}
	}
}

// isText reports whether events of kind k carry streamed text: the answer or the thinking.
func isText(k chat.EventKind) bool { return k == chat.EventDelta || k == chat.EventReasoning }

// handleRunEvents applies a batch of a run's events. Events of a run that is no longer the
// active one (the session was switched) are read on, so its recorder finishes, and dropped.
func (m *Model) handleRunEvents(msg runEventsMsg) tea.Cmd {
	ended := msg.closed
	if m.active == nil || m.active.tag != msg.tag {
		for _, ev := range msg.events {
			ended = ended || ev.Terminal()
		}
		if ended {
			return nil
		}
		return readEvents(msg.tag, msg.ch)
	}
	r := m.active
	m.now = m.clock.Now()
	delta := false
	var final chat.Status
	for _, ev := range msg.events {
		switch ev.Kind {
		case chat.EventStarted:
			// The attempt announced by EventRetrying is now being sent: keep its words, drop
			// the countdown.
			r.reconnectAt, r.sentAt = time.Time{}, m.now
		case chat.EventCompacted:
			// A quiet note, not a retry: the re-run that follows is a new request.
			m.setNotice(agent.OmittedNote(ev), false)
		case chat.EventRetrying:
			r.reconnecting, r.reconnectAt = &ev, m.now.Add(ev.Wait)
		case chat.EventDelta:
			m.showHidden(r)
			m.transcript.AppendDelta(r.rcpt.ReplyID, ev.Text)
			r.gotOutput, r.reconnecting, r.lastText, delta = true, nil, m.now, true
		case chat.EventReasoning:
			m.showHidden(r)
			m.transcript.AppendReasoning(r.rcpt.ReplyID, ev.Text, r.sentAt, m.now)
			r.gotOutput, r.reconnecting, r.lastText, delta = true, nil, m.now, true
		case chat.EventFinished:
			m.transcript.SetFinishReason(r.rcpt.ReplyID, ev.FinishReason)
		case chat.EventUsage:
			m.transcript.SetThinkingTokens(r.rcpt.ReplyID, ev.Usage.ReasoningTokens)
		case chat.EventToolCall, chat.EventToolAsk, chat.EventToolRunning, chat.EventToolResult:
			m.handleToolEvent(r, ev)
			r.lastText, delta = m.now, true // a tool's call and run count as text
		}
		if ev.Terminal() {
			m.transcript.SetModel(r.rcpt.ReplyID, ev.Model)
			m.transcript.SetThought(r.rcpt.ReplyID, ev.Thought)
			final, ended = m.finish(chat.Decide(ev, true), ev.NotStored), true
			if notes := chat.RunNotes(ev, "/tools turns them on"); len(notes) > 0 && ev.NotStored == "" && !r.hidden {
				m.transcript.SetNote(r.rcpt.ReplyID, sanitize.String(strings.Join(notes, "; ")))
			}
		}
	}
	if r.cancelling || ended {
		m.runs.drawFirst = true
	}
	if ended {
		if final == "" {
			// Record always ends with a terminal event; this only guards the screen.
			final = m.finish(chat.Decide(chat.Event{}, false), "")
		}
		return tea.Batch(signalEnd(&m.turn, m.clock.Now(), final), m.endRun(final))
	}
	cmds := []tea.Cmd{readEvents(r.tag, msg.ch)}
	if delta && !r.cancelling { // a stopped run's last text is rendered once it has ended
		cmds = append(cmds, m.runs.frame(m.transcript, &m.overlays))
	}
	return tea.Batch(cmds...)
}

// showHidden puts the reply of a Tier 2 retry on screen at its first output, in place of the
// reply it retries, as history.Retry does in the database.
func (m *Model) showHidden(r *activeRun) {
	if !r.hidden {
		return
	}
	r.hidden = false
	m.transcript.Remove(m.transcript.Between(r.rcpt.AnchorID, r.rcpt.ReplyID))
	reply, resumed := m.resumed[r.rcpt.ReplyID]
	delete(m.resumed, r.rcpt.ReplyID)
	if !resumed {
		reply = stored.Message{ID: r.rcpt.ReplyID, SessionID: m.session.ID, Role: chat.RoleAssistant,
			AnchorID: r.rcpt.AnchorID, RunID: r.rcpt.RunID}
	}
	reply.Model, reply.Status, reply.Superseded = m.modelName(), "", false
	m.transcript.InsertAfter(r.rcpt.AnchorID, reply)
	m.transcript.StartStreaming(r.rcpt.ReplyID)
}

// finish shows how the active run ended, and returns its status. A Tier 2 retry that ended
// without output is not on screen: the reply it retried, still the live one, says how it
// ended. notStored, when set, says the history could not store the run: the reply keeps that
// line under it, and the status line says it too.
func (m *Model) finish(o chat.Outcome, notStored string) chat.Status {
	r := m.active
	if notStored != "" {
		m.setNotice(sanitize.String(notStored), true)
	}
	if !r.hidden {
		m.transcript.Finish(r.rcpt.ReplyID, o.Status, o.Retry)
		if notStored != "" {
			m.transcript.SetNote(r.rcpt.ReplyID, sanitize.String(notStored))
		}
		return o.Status
	}
	note := fmt.Sprintf("retry %d: %s", m.tier2.Attempt(), o.Status)
	if c := o.Retry; c != nil {
		note = fmt.Sprintf("retry %d failed: %s", m.tier2.Attempt(), sanitize.String(c.Label))
		if c.Message != "" {
			note += " — " + sanitize.String(c.Message)
		}
	}
	m.transcript.SetNote(m.transcript.ReplyTo(r.rcpt.AnchorID), note)
	return o.Status
}

// endRun forgets the active run, which ended with status st, and starts the next queued one,
// or quits if asked to. A failed run is read back from the database, for Tier 2 to decide
// from its stored classification.
func (m *Model) endRun(st chat.Status) tea.Cmd {
	rcpt := m.active.rcpt
	m.dropOverlay(toolask.ID) // a question whose run ended has no one to answer it
	m.toolEnded("")           // and a tool it ran has ended
	m.active.cancel()         // releases the context's resources
	m.active = nil
	m.runEnded = m.clock.Now()
	m.tier2.Ended(rcpt.RunID, st)
	if m.quitAfterRun {
		return m.quit()
	}
	var readBack, next tea.Cmd
	if st == chat.StatusFailed {
		readBack = m.readFailedRun(rcpt.RunID, m.tier2.Token())
	}
	if !m.held {
		next = m.dispatchNext()
	}
	if m.rereadWhenIdle && m.active == nil && len(m.queue) == 0 {
		next = m.sessionState.reread(&m.runs)
	}
	return tea.Batch(next, readBack, m.sessionState.readSpent(m.spend, &m.endpoints), m.readMarks(), m.budget.fetch(&m.sessionState, &m.endpoints))
}

// cancelRun cancels the active run. The run ends when its EventCancelled, stored as
// cancelled with the text received so far, comes back.
func (r *runs) cancelRun() {
	if r.active == nil || r.active.cancelling {
		return
	}
	r.active.cancelling = true
	r.active.cancel()
}

// This part owns frames: a streaming reply is rendered at most once per frame, however fast
// its deltas come, and no message renders more than a frame's quota of markdown, however
// long the reply. What the quota leaves unfinished goes on in the next frame, asked for at
// once, so the event loop takes a key between any two pieces of rendering.

// frameInterval is how often, at most, a streaming reply is rendered again: deltas that
// arrive in between cost no rendering at all.
const frameInterval = time.Second / 30

// frame shows the streaming reply's new text now when a frame interval has passed since it
// was last rendered, and otherwise asks for a frame when it will have: never more than one
// render per interval, and new text never waits longer than one. t and the versions view on s
// are what render.
func (r *runs) frame(t *transcript.List, s *stack) tea.Cmd {
	wait := frameInterval - r.now.Sub(r.lastFrame)
	if wait <= 0 {
		r.refresh(r.now, t, s)
		return nil
	}
	return r.askFrame(wait)
}

// askFrame asks for a frame after wait, unless one is on its way. The frame carries the tag
// of the newest run: one asked for before a run started is not shown.
func (r *runs) askFrame(wait time.Duration) tea.Cmd {
	if r.framePending {
		return nil
	}
	r.framePending = true
	tag := r.lastRunTag
	if wait <= 0 {
		return func() tea.Msg { return frameMsg{tag: tag} }
	}
	return tea.Tick(wait, func(time.Time) tea.Msg { return frameMsg{tag: tag} })
}

// handleFrame renders the streaming reply again at now, and goes on with unfinished renders;
// while the run is being stopped it renders nothing, and the run's end asks for the frame.
func (r *runs) handleFrame(msg frameMsg, now time.Time, t *transcript.List, s *stack) {
	r.framePending = false
	if r.active != nil && r.active.cancelling {
		r.drawFirst = true // rendered once the run has ended
		return
	}
	if msg.tag == r.lastRunTag {
		r.refresh(now, t, s)
	}
}

// refresh lets the views (t, and the versions view on s) render again what changed or is
// unfinished.
func (r *runs) refresh(now time.Time, t *transcript.List, s *stack) {
	t.Refresh()
	if v, ok := s.Find(versions.ID).(*versions.View); ok {
		v.Refresh()
	}
	r.lastFrame = now
}

// giveQuota gives the views (t, and the versions view on s) a frame's quota of rendering for
// the message being handled.
func giveQuota(t *transcript.List, s *stack) {
	t.Quota(markdown.FrameQuota)
	if v, ok := s.Find(versions.ID).(*versions.View); ok {
		v.Quota(markdown.FrameQuota)
	}
}

// settle renders what is on screen (the list shown on s, else t), within the message's quota,
// and asks for the next frame at once if that left a render unfinished. It ends every Update,
// so View only draws. A message that stopped or ended the run renders nothing: its screen is
// drawn first, and the render goes on in the frame asked for then (at the end, while stopping).
func (r *runs) settle(t *transcript.List, s *stack) tea.Cmd {
	if r.drawFirst {
		r.drawFirst = false
		if r.active != nil && r.active.cancelling {
			return nil // the run's end asks for the frame
		}
		return r.askFrame(0)
	}
	if v, ok := s.listShown().(*versions.View); ok {
		if v.Prepare() {
			return r.askFrame(0)
		}
		return nil
	}
	if s.listShown() != nil {
		return nil
	}
	t.Prepare()
	if t.Unfinished() {
		return r.askFrame(0)
	}
	return nil
}

// signalEnd writes turn's signal of a long reply's end at now, ended with status st, when the
// terminal is not looked at (tui/notify decides).
func signalEnd(turn *notify.Turn, now time.Time, st chat.Status) tea.Cmd {
	if seq := turn.Ended(now, st == chat.StatusCancelled); seq != "" {
		return tea.Raw(seq)
	}
	return nil
}
