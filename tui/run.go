package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/agent"
	"parley/agent/chat"
	"parley/history"
	"parley/tui/sanitize"
)

// frameInterval is how often, at most, a streaming reply is rendered again: deltas that
// arrive in between cost no rendering at all.
const frameInterval = time.Second / 30

// batchWindow is how long the reader gathers a run's deltas before handing them to the model
// in one message: a stream then costs one Update, render and View per frame, not per delta.
const batchWindow = frameInterval

// model returns the model name that new runs use.
func (m *Model) model() string {
	if m.client == nil {
		return ""
	}
	return m.client.Endpoint().Model
}

// send stores text as an operator message and starts or queues its run. Messages are stored
// one at a time, in the order typed. A new message disarms Tier 2: the operator moved on.
func (m *Model) send(text string) tea.Cmd {
	m.tier2.Disarm()
	m.outbox = append(m.outbox, text)
	return m.postNext()
}

// postNext stores the oldest message of the outbox, unless one is being stored already.
func (m *Model) postNext() tea.Cmd {
	if m.posting || len(m.outbox) == 0 {
		return nil
	}
	text := m.outbox[0]
	m.outbox = m.outbox[1:]
	m.posting = true
	// A message waits when a run is active, or when the screen is about to start one.
	queued := m.run != nil || len(m.queue) > 0
	db, sessionID, model, gen := m.db, m.session.ID, m.model(), m.sessionGen
	return func() tea.Msg {
		rcpt, err := db.Post(sessionID, text, model, queued)
		if err != nil {
			return postedMsg{gen: gen, text: text, err: err}
		}
		s, err := db.Session(sessionID)
		return postedMsg{gen: gen, text: text, model: model, rcpt: rcpt, session: s, err: err}
	}
}

// handlePosted shows a stored message and its reply, and starts the run unless it queues.
func (m *Model) handlePosted(msg postedMsg) tea.Cmd {
	m.posting = false
	if msg.gen != m.sessionGen {
		// The operator switched sessions meanwhile; the message is stored in its own session.
		return m.postNext()
	}
	if msg.rcpt.RunID == 0 {
		// Not stored: give the words back rather than lose them.
		if m.input.Value() == "" {
			m.input.SetValue(msg.text)
		}
		m.setNotice("could not store the message: "+msg.err.Error(), true)
		return m.postNext()
	}
	if msg.err == nil {
		m.session = msg.session
	}
	m.transcript.Append(history.Message{ID: msg.rcpt.AnchorID, SessionID: m.session.ID, Role: history.RoleUser, Content: msg.text})
	m.transcript.Append(history.Message{
		ID: msg.rcpt.ReplyID, SessionID: m.session.ID, Role: history.RoleAssistant,
		AnchorID: msg.rcpt.AnchorID, RunID: msg.rcpt.RunID, Status: chat.StatusQueued, Model: msg.model,
	})
	m.transcript.GotoBottom()
	var cmd tea.Cmd
	if msg.rcpt.Queued {
		m.queue = append(m.queue, msg.rcpt)
		if m.run == nil {
			cmd = m.dispatchNext()
		}
	} else {
		cmd = m.startRun(msg.rcpt)
	}
	return tea.Batch(cmd, m.postNext())
}

// dispatchNext starts the oldest queued run, if any.
func (m *Model) dispatchNext() tea.Cmd {
	if len(m.queue) == 0 {
		return nil
	}
	rcpt := m.queue[0]
	m.queue = m.queue[1:]
	return m.startRun(rcpt)
}

// startRun makes rcpt's run the active one and sends its request from a command: the
// request's context is the run's, its events are stored by history.Record before they reach
// the screen.
func (m *Model) startRun(rcpt history.Receipt) tea.Cmd {
	m.runSeq++
	ctx, cancel := context.WithCancel(context.Background())
	m.run = &run{id: m.runSeq, rcpt: rcpt, cancel: cancel}
	m.transcript.StartStreaming(rcpt.ReplyID)
	db, client, clock, id, budget, sessionID := m.db, m.client, m.clock, m.runSeq, m.budget, m.session.ID
	start := func() tea.Msg {
		var events <-chan chat.Event
		msgs, err := db.Context(rcpt.AnchorID)
		if ctx.Err() != nil {
			// Cancelled before its request was sent: it is stored cancelled and never sent.
			ch := make(chan chat.Event, 1)
			ch <- chat.Event{Kind: chat.EventCancelled}
			close(ch)
			events = ch
		} else if err != nil {
			// Stored through Record like any failed run, so the database says why.
			ch := make(chan chat.Event, 1)
			ch <- chat.Event{Kind: chat.EventFailed, Class: chat.Classification{
				Class: chat.BadRequest, Label: "Could not build the request", Message: err.Error(),
			}}
			close(ch)
			events = ch
		} else {
			// The budget refuses a request that would pass a spend limit: the run then fails
			// as spend_limit_exceeded, which Tier 2 never arms for.
			events = budget.Stream(ctx, client, sessionID, msgs)
		}
		return runStartedMsg{run: id, events: db.Record(rcpt.RunID, events, clock)}
	}
	return tea.Batch(start, m.spinner.Tick)
}

// readEvents waits for the next event of a run. After a delta it goes on gathering deltas,
// joined into one, until batchWindow has passed; any other event ends the batch at once, so
// that retries and the end of the run show without delay, and a terminal event is never left
// behind.
func readEvents(id int, ch <-chan chat.Event) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return runEventsMsg{run: id, ch: ch, closed: true}
		}
		if ev.Kind != chat.EventDelta {
			return runEventsMsg{run: id, events: []chat.Event{ev}, ch: ch}
		}
		var text strings.Builder
		text.WriteString(ev.Text)
		batch := func(more ...chat.Event) []chat.Event {
			return append([]chat.Event{{Kind: chat.EventDelta, Text: text.String()}}, more...)
		}
		window := time.NewTimer(batchWindow)
		defer window.Stop()
		for {
			select {
			case ev, ok = <-ch:
				if !ok {
					return runEventsMsg{run: id, events: batch(), ch: ch, closed: true}
				}
				if ev.Kind != chat.EventDelta {
					return runEventsMsg{run: id, events: batch(ev), ch: ch}
				}
				text.WriteString(ev.Text)
			case <-window.C:
				return runEventsMsg{run: id, events: batch(), ch: ch}
			}
		}
	}
}

// handleRunStarted starts reading the events of a run.
func (m *Model) handleRunStarted(msg runStartedMsg) tea.Cmd {
	return readEvents(msg.run, msg.events)
}

// handleRunEvents applies a batch of a run's events. Events of a run that is no longer the
// active one (the session was switched) are read on, so its recorder finishes, and dropped.
func (m *Model) handleRunEvents(msg runEventsMsg) tea.Cmd {
	ended := msg.closed
	if m.run == nil || m.run.id != msg.run {
		for _, ev := range msg.events {
			ended = ended || ev.Terminal()
		}
		if ended {
			return nil
		}
		return readEvents(msg.run, msg.ch)
	}
	r := m.run
	m.now = m.clock.Now()
	delta := false
	var final chat.Status
	for _, ev := range msg.events {
		switch ev.Kind {
		case chat.EventStarted:
			// The attempt announced by EventRetrying is now being sent: keep its words, drop
			// the countdown.
			r.retryAt = time.Time{}
		case chat.EventCompacted:
			// A quiet note, not a retry: the re-run that follows is a new request.
			m.setNotice(agent.OmittedNote(ev.Omitted), false)
		case chat.EventRetrying:
			r.retrying = fmt.Sprintf("%s — reconnecting, attempt %d/%d", sanitize.String(ev.Class.Label), ev.Attempt, ev.MaxAttempts)
			r.retryAt = m.now.Add(ev.Wait)
		case chat.EventDelta:
			m.transcript.AppendDelta(r.rcpt.ReplyID, ev.Text)
			r.gotDelta, r.retrying, delta = true, "", true
		}
		if ev.Terminal() {
			o := chat.Decide(ev, true)
			m.transcript.Finish(r.rcpt.ReplyID, o.Status, o.Retry)
			final, ended = o.Status, true
		}
	}
	if ended {
		if final == "" {
			// Record always ends with a terminal event; this only guards the screen.
			o := chat.Decide(chat.Event{}, false)
			m.transcript.Finish(r.rcpt.ReplyID, o.Status, o.Retry)
			final = o.Status
		}
		return m.endRun(final)
	}
	cmds := []tea.Cmd{readEvents(r.id, msg.ch)}
	if delta {
		cmds = append(cmds, m.frame())
	}
	return tea.Batch(cmds...)
}

// frame shows the streaming reply's new text now when a frame interval has passed since it
// was last rendered, and otherwise asks for a frame when it will have: never more than one
// render per interval, and new text never waits longer than one.
func (m *Model) frame() tea.Cmd {
	wait := frameInterval - m.now.Sub(m.lastFrame)
	if wait <= 0 {
		m.transcript.Refresh()
		m.lastFrame = m.now
		return nil
	}
	if m.framePending {
		return nil
	}
	m.framePending = true
	id := m.run.id
	return tea.Tick(wait, func(time.Time) tea.Msg { return frameMsg{run: id} })
}

// endRun forgets the ended run, which ended with status st, and starts the next queued one,
// or quits if asked to. A failed run is read back from the database, for Tier 2 to decide
// from its stored classification.
func (m *Model) endRun(st chat.Status) tea.Cmd {
	rcpt := m.run.rcpt
	m.run.cancel() // releases the context's resources
	m.run = nil
	m.tier2.Ended(rcpt.RunID, st)
	if m.quitAfterRun {
		return m.quit()
	}
	var read tea.Cmd
	if st == chat.StatusFailed {
		db, gen, t2 := m.db, m.sessionGen, m.tier2.gen
		read = func() tea.Msg {
			r, err := db.Run(rcpt.RunID)
			return storedRunMsg{gen: gen, tier2: t2, run: r, err: err}
		}
	}
	return tea.Batch(m.dispatchNext(), read, m.readSpent())
}

// readSpent reads what the session has spent, for the header.
func (m *Model) readSpent() tea.Cmd {
	if m.budget == nil {
		return nil
	}
	b, id, gen := m.budget, m.session.ID, m.sessionGen
	return func() tea.Msg {
		s, err := b.Session(id)
		return spentMsg{gen: gen, spent: s, err: err}
	}
}

// handleFrame renders the streaming reply again.
func (m *Model) handleFrame(msg frameMsg) {
	m.framePending = false
	if m.run != nil && m.run.id == msg.run {
		m.transcript.Refresh()
		m.lastFrame = m.clock.Now()
	}
}

// cancelRun cancels the active run. The run ends when its EventCancelled, stored as
// cancelled with the text received so far, comes back.
func (m *Model) cancelRun() {
	if m.run == nil || m.run.cancelling {
		return
	}
	m.run.cancelling = true
	m.run.cancel()
}

// cancelQueued stores every queued run as cancelled, so none is left waiting when the screen
// quits or leaves the session. It runs inside a command.
func cancelQueued(db *history.DB, queue []history.Receipt) error {
	for _, r := range queue {
		if err := db.FinishRun(r.RunID, history.Finish{Status: chat.StatusCancelled}); err != nil {
			return err
		}
	}
	return nil
}

// quit stores the queued runs as cancelled and ends the program.
func (m *Model) quit() tea.Cmd {
	db, queue := m.db, m.queue
	m.queue = nil
	return func() tea.Msg {
		// Quitting either way: a run that could not be cancelled stays queued and shows so
		// at the next start.
		_ = cancelQueued(db, queue)
		return tea.Quit()
	}
}

// regenerateReply regenerates reply id by hand (r, /regen): it supersedes the reply and
// everything after it and runs its anchor again, queued behind an active run. It disarms
// Tier 2.
func (m *Model) regenerateReply(id int64) tea.Cmd {
	anchor := m.transcript.Anchor(id)
	if anchor == 0 {
		m.setNotice("no reply to regenerate", true)
		return nil
	}
	if m.posting {
		m.setNotice("a message is being stored; regenerate again in a moment", true)
		return nil
	}
	m.tier2.Disarm()
	return m.regenerate(anchor, false)
}

// regenerate stores a regeneration from the operator message anchor: the path of r, /regen
// and every Tier 2 retry. auto marks a Tier 2 retry, tied to the current Tier 2 generation.
// Like a posted message it holds back other messages until it is stored, so the two never
// supersede each other by racing.
func (m *Model) regenerate(anchor int64, auto bool) tea.Cmd {
	m.posting = true
	queued := m.run != nil || len(m.queue) > 0
	db, model, gen, t2 := m.db, m.model(), m.sessionGen, m.tier2.gen
	return func() tea.Msg {
		rcpt, err := db.Regenerate(anchor, model, queued)
		return regeneratedMsg{gen: gen, tier2: t2, auto: auto, model: model, rcpt: rcpt, err: err}
	}
}

// handleRegenerated shows a stored regeneration: the superseded messages leave the
// transcript, the new reply joins it, and its run starts or queues. A Tier 2 retry cancelled
// (or replaced) while it was being stored is stored cancelled instead, and never sent.
func (m *Model) handleRegenerated(msg regeneratedMsg) tea.Cmd {
	m.posting = false
	db := m.db
	if msg.gen != m.sessionGen {
		// The session was left meanwhile; its run must not wait forever.
		if msg.err == nil {
			return tea.Batch(cancelCmd(db, []history.Receipt{msg.rcpt}), m.postNext())
		}
		return m.postNext()
	}
	if msg.err != nil {
		if msg.auto && msg.tier2 == m.tier2.gen {
			m.tier2.Disarm()
		}
		m.setNotice("could not regenerate: "+msg.err.Error(), true)
		return m.postNext()
	}
	rcpt := msg.rcpt
	m.transcript.Remove(rcpt.Superseded)
	// Queued runs whose replies were superseded must never be sent.
	var keep, drop []history.Receipt
	for _, q := range m.queue {
		if slices.Contains(rcpt.Superseded, q.ReplyID) {
			drop = append(drop, q)
		} else {
			keep = append(keep, q)
		}
	}
	m.queue = keep
	m.transcript.Append(history.Message{
		ID: rcpt.ReplyID, SessionID: m.session.ID, Role: history.RoleAssistant,
		AnchorID: rcpt.AnchorID, RunID: rcpt.RunID, Status: chat.StatusQueued, Model: msg.model,
	})
	if m.focus == focusTranscript {
		m.transcript.SelectLast()
	}
	m.transcript.GotoBottom()
	if msg.auto && !m.tier2.Sent(msg.tier2, rcpt.RunID) {
		m.transcript.SetStatus(rcpt.ReplyID, chat.StatusCancelled, nil)
		drop = append(drop, rcpt)
		return tea.Batch(cancelCmd(db, drop), m.postNext())
	}
	var start tea.Cmd
	if m.run != nil || len(m.queue) > 0 {
		m.queue = append(m.queue, rcpt)
	} else {
		start = m.startRun(rcpt)
	}
	return tea.Batch(cancelCmd(db, drop), start, m.postNext())
}

// cancelCmd stores queued runs as cancelled, from a command; nil when there are none.
func cancelCmd(db *history.DB, runs []history.Receipt) tea.Cmd {
	if len(runs) == 0 {
		return nil
	}
	return func() tea.Msg {
		if err := cancelQueued(db, runs); err != nil {
			return noticeMsg{text: "could not cancel a queued run: " + err.Error(), err: true}
		}
		return nil
	}
}

// handleStoredRun arms Tier 2 from a failed run as it was stored. Only the newest reply, with
// nothing else waiting, is retried: a retry regenerates from its anchor, which would
// supersede anything after it.
func (m *Model) handleStoredRun(msg storedRunMsg) tea.Cmd {
	if msg.gen != m.sessionGen || msg.tier2 != m.tier2.gen {
		return nil // the operator moved on meanwhile
	}
	if msg.err != nil {
		m.tier2.Disarm()
		m.setNotice("could not read the failed run back: "+msg.err.Error(), true)
		return nil
	}
	free := m.run == nil && len(m.queue) == 0 && len(m.outbox) == 0 && !m.posting
	now := m.clock.Now()
	if !free || m.transcript.Last() != msg.run.ReplyID {
		m.tier2.Disarm()
		return nil
	}
	if !m.tier2.Arm(msg.run, now) {
		if c := msg.run.Retry; c != nil && c.RetryAfterUntil.After(now) {
			// Too far away to wait for, or not retryable at all: say when, retry nothing.
			m.setNotice(fmt.Sprintf("%s — the provider says not before %s · not retried automatically",
				sanitize.String(c.Label), clockTime(c.RetryAfterUntil, now)), true)
		}
		return nil
	}
	return m.handleTier2Tick(tier2TickMsg{gen: m.tier2.gen})
}

// handleTier2Tick moves the countdown on, and regenerates when it is due.
func (m *Model) handleTier2Tick(msg tier2TickMsg) tea.Cmd {
	now := m.clock.Now()
	fire, next := m.tier2.Tick(msg.gen, now)
	if fire {
		return m.regenerate(m.tier2.anchor, true)
	}
	if next == 0 {
		return nil // stale: cancelled, disarmed or armed again since
	}
	m.now = now
	clock, gen := m.clock, msg.gen
	return func() tea.Msg {
		<-clock.After(next)
		return tier2TickMsg{gen: gen}
	}
}

// retryNow sends the armed Tier 2 retry at once (enter).
func (m *Model) retryNow() tea.Cmd {
	if !m.tier2.RetryNow() {
		return nil
	}
	return m.regenerate(m.tier2.anchor, true)
}

// cancelRetry is esc on a Tier 2 retry: an armed countdown stops, a retry being sent is
// cancelled, running or queued. Nothing more is sent for it.
func (m *Model) cancelRetry() tea.Cmd {
	runID := m.tier2.Cancel()
	m.setNotice("retry cancelled — r to regenerate", false)
	if runID == 0 {
		return nil
	}
	if m.run != nil && m.run.rcpt.RunID == runID {
		m.cancelRun()
		return nil
	}
	for i, q := range m.queue {
		if q.RunID == runID {
			m.queue = slices.Delete(slices.Clone(m.queue), i, i+1)
			m.transcript.SetStatus(q.ReplyID, chat.StatusCancelled, nil)
			return cancelCmd(m.db, []history.Receipt{q})
		}
	}
	return nil
}
