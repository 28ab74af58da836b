package tui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/agent"
	"parley/history"
	"parley/retry"
)

// frameInterval is how often a streaming reply is rendered again: deltas that arrive in
// between cost no rendering at all.
const frameInterval = time.Second / 30

// batchWindow is how long the reader gathers a run's deltas before handing them to the model
// in one message. The screen shows deltas only once per frame, so a fast stream then costs
// one Update and View per window instead of one per delta, and shows no later.
const batchWindow = frameInterval / 2

// model returns the model name that new runs use.
func (m *Model) model() string {
	if m.client == nil {
		return ""
	}
	return m.client.Endpoint().Model
}

// send stores text as an operator message and starts or queues its run. Messages are stored
// one at a time, in the order typed.
func (m *Model) send(text string) tea.Cmd {
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
		AnchorID: msg.rcpt.AnchorID, RunID: msg.rcpt.RunID, Status: history.StatusQueued, Model: msg.model,
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
	db, client, clock, id := m.db, m.client, m.clock, m.runSeq
	start := func() tea.Msg {
		var events <-chan agent.Event
		msgs, err := db.Context(rcpt.AnchorID)
		if err != nil {
			// Stored through Record like any failed run, so the database says why.
			ch := make(chan agent.Event, 1)
			ch <- agent.Event{Kind: agent.EventFailed, Class: retry.Classification{
				Class: retry.BadRequest, Label: "Could not build the request", Message: err.Error(),
			}}
			close(ch)
			events = ch
		} else {
			events = client.Stream(ctx, msgs)
		}
		return runStartedMsg{run: id, events: db.Record(rcpt.RunID, events, clock)}
	}
	return tea.Batch(start, m.spinner.Tick)
}

// readEvents waits for the next event of a run. After a delta it goes on gathering deltas
// until batchWindow has passed; any other event ends the batch at once, so that retries and
// the end of the run show without delay, and a terminal event is never left behind.
func readEvents(id int, ch <-chan agent.Event) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return runEventsMsg{run: id, ch: ch, closed: true}
		}
		batch := []agent.Event{ev}
		if ev.Kind != agent.EventDelta {
			return runEventsMsg{run: id, events: batch, ch: ch}
		}
		window := time.NewTimer(batchWindow)
		defer window.Stop()
		for {
			select {
			case ev, ok = <-ch:
				if !ok {
					return runEventsMsg{run: id, events: batch, ch: ch, closed: true}
				}
				batch = append(batch, ev)
				if ev.Kind != agent.EventDelta {
					return runEventsMsg{run: id, events: batch, ch: ch}
				}
			case <-window.C:
				return runEventsMsg{run: id, events: batch, ch: ch}
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
	for _, ev := range msg.events {
		switch ev.Kind {
		case agent.EventStarted:
			// The attempt announced by EventRetrying is now being sent: keep its words, drop
			// the countdown.
			r.retryAt = time.Time{}
		case agent.EventRetrying:
			r.retrying = fmt.Sprintf("%s — reconnecting, attempt %d/%d", Sanitize(ev.Class.Label), ev.Attempt, ev.MaxAttempts)
			r.retryAt = m.now.Add(ev.Wait)
		case agent.EventDelta:
			m.transcript.AppendDelta(r.rcpt.ReplyID, ev.Text)
			r.gotDelta, r.retrying, delta = true, "", true
		case agent.EventFinished:
			m.transcript.Finish(r.rcpt.ReplyID, history.StatusSucceeded, nil)
			ended = true
		case agent.EventFailed:
			c := ev.Class
			st := history.StatusFailed
			if c.Class == retry.Cancelled {
				st = history.StatusCancelled
			}
			m.transcript.Finish(r.rcpt.ReplyID, st, &c)
			ended = true
		case agent.EventCancelled:
			m.transcript.Finish(r.rcpt.ReplyID, history.StatusCancelled, nil)
			ended = true
		}
	}
	if ended {
		if msg.closed && m.transcript.Status(r.rcpt.ReplyID) == history.StatusRunning {
			// Record always ends with a terminal event; this only guards the screen.
			m.transcript.Finish(r.rcpt.ReplyID, history.StatusInterrupted, nil)
		}
		return m.endRun()
	}
	cmds := []tea.Cmd{readEvents(r.id, msg.ch)}
	if delta && !m.framePending {
		m.framePending = true
		id := r.id
		cmds = append(cmds, tea.Tick(frameInterval, func(time.Time) tea.Msg { return frameMsg{run: id} }))
	}
	return tea.Batch(cmds...)
}

// endRun forgets the ended run and starts the next queued one, or quits if asked to.
func (m *Model) endRun() tea.Cmd {
	m.run.cancel() // releases the context's resources
	m.run = nil
	if m.quitAfterRun {
		return m.quit()
	}
	return m.dispatchNext()
}

// handleFrame renders the streaming reply again.
func (m *Model) handleFrame(msg frameMsg) {
	m.framePending = false
	if m.run != nil && m.run.id == msg.run {
		m.transcript.Refresh()
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
		if err := db.FinishRun(r.RunID, history.Finish{Status: history.StatusCancelled}); err != nil {
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
