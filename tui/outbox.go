package tui

import (
	"errors"
	"strings"

	tea "charm.land/bubbletea/v2"

	"parley/history"
	"parley/history/stored"
	"parley/internal/attach"
	"parley/internal/chat"
	"parley/tui/inputbox"
	"parley/tui/transcript"
)

// This file owns what waits to be sent: the outbox of typed messages not yet stored, the queue
// of stored runs waiting for the active one, and storing queued runs as cancelled when they
// will never be sent (on quit, on leaving a session, when a regeneration supersedes them).

// outgoing is a message typed and not stored yet: its text and the images attached to it.
type outgoing struct {
	text   string
	images []chat.Image
}

// send stores text, with images, as an operator message and starts or queues its run.
// Messages are stored one at a time, in the order typed. A new message disarms Tier 2: the
// operator moved on.
func (m *Model) send(text string, images []chat.Image) tea.Cmd {
	m.tier2.Disarm()
	m.runs.setHeld(false, m.transcript, m.keys.Chat.SendQueued.Help().Key) // sending goes on: what was held goes first, in the order typed
	m.outbox = append(m.outbox, outgoing{text, images})
	return m.postNext()
}

// setHeld holds the messages queued behind a stopped reply (or lets them go), and shows it on
// the queued replies of t, with the key that sends them.
func (r *runs) setHeld(held bool, t *transcript.List, key string) {
	r.held = held
	t.SetHeld(held, key)
}

// postNext stores the oldest message of the outbox, unless one is being stored already.
func (m *Model) postNext() tea.Cmd {
	if m.posting || len(m.outbox) == 0 {
		return nil
	}
	next := m.outbox[0]
	m.outbox = m.outbox[1:]
	text := next.text
	m.posting = true
	db, sessionID, modelName, sessionGen, queued, system := m.db, m.session.ID, m.modelName(), m.sessionGen, m.busy(), m.next.system
	ep, seen, known, title := m.client.Endpoint(), m.seenID(m.transcript.Newest()), m.session.ID, m.next.title
	return func() tea.Msg {
		if sessionID == "" && system.Text != "" {
			// A new session is stored with its first message; its prompt goes before it.
			s, err := db.CreateSession()
			if err != nil {
				return postedMsg{sessionGen: sessionGen, out: next, err: err}
			}
			sessionID = s.ID
		}
		sys, err := postSystem(db, sessionID, system)
		if err != nil {
			return postedMsg{sessionGen: sessionGen, out: next, err: err}
		}
		// Another window may have written in a session this screen opened stored (session.go).
		var rcpt stored.Receipt
		if known == "" {
			rcpt, err = db.Post(sessionID, text, modelName, queued, next.images...)
		} else {
			rcpt, err = db.PostSeen(sessionID, max(seen, sys.ID), text, modelName, queued, next.images...)
		}
		if err != nil {
			return postedMsg{sessionGen: sessionGen, out: next, err: err}
		}
		if !ep.Demo {
			// The session goes on with what it runs on now, after -c too (a failure to note
			// it loses nothing: the message is stored).
			db.SetSessionModel(rcpt.SessionID, ep.Profile(), modelName)
		}
		if known == "" && title != "" {
			if err := db.SetTitle(rcpt.SessionID, title); err != nil {
				return postedMsg{sessionGen: sessionGen, out: next, rcpt: rcpt, err: err}
			}
		}
		s, err := db.Session(rcpt.SessionID)
		return postedMsg{sessionGen: sessionGen, out: next, modelName: modelName, rcpt: rcpt, system: sys, session: s, err: err}
	}
}

// handlePosted shows a stored message and its reply, and starts the run unless it queues.
func (m *Model) handlePosted(msg postedMsg) tea.Cmd {
	m.posting = false
	if msg.sessionGen != m.sessionGen {
		// The operator switched sessions meanwhile; the message is stored in its own session.
		return m.postNext()
	}
	if unseen := (*history.UnseenError)(nil); errors.As(msg.err, &unseen) {
		return m.refusedUnseen(msg.out, unseen.Count)
	}
	if msg.rcpt.RunID == 0 {
		// Not stored: the words come back, with what still waited behind them, before
		// whatever was typed meanwhile. Nothing more is tried until the operator sends again.
		m.next.giveBack(append([]outgoing{msg.out}, m.outbox...), &m.input)
		m.outbox = nil
		m.setNotice("not sent: could not store the message ("+msg.err.Error()+") — it is back in the input; "+
			m.keys.Input.Send.Help().Key+" sends it again", true)
		return nil
	}
	var drafts tea.Cmd
	if msg.err == nil {
		if m.session.ID == "" && msg.session.ID != "" {
			// The new session is stored now: what is in the input is its draft, no longer
			// the draft of a session to come.
			draft := m.input.Value()
			drafts = tea.Batch(storeDraftCmd(m.db, "", ""), storeDraftCmd(m.db, msg.session.ID, draft))
			m.draft.savedAs(draft, m.input.Rev())
			m.next.title = ""
		}
		m.session = msg.session
	}
	if msg.system.ID != 0 {
		m.transcript.Append(msg.system)
	}
	m.transcript.Append(stored.Message{ID: msg.rcpt.AnchorID, SessionID: m.session.ID, Role: chat.RoleUser, Content: msg.out.text,
		Images: msg.out.images})
	m.transcript.Append(queuedReply(msg.rcpt, m.session.ID, msg.modelName))
	m.transcript.GotoBottom()
	var cmd tea.Cmd
	if msg.rcpt.Queued {
		m.queue = append(m.queue, msg.rcpt)
		if m.active == nil && !m.held {
			cmd = m.dispatchNext()
		}
	} else {
		cmd = m.startRun(msg.rcpt)
	}
	return tea.Batch(cmd, m.postNext(), drafts, m.budget.fetch(&m.sessionState, &m.endpoints))
}

// giveBack puts messages that were not sent back into the input, in order, before what the
// input holds: their texts joined with blank lines, never replacing anything, and their images
// attached to the next message (n) again.
func (n *nextMessage) giveBack(outs []outgoing, in *inputbox.Box) {
	var texts []string
	for _, o := range outs {
		texts = append(texts, o.text)
		for _, im := range o.images {
			n.files = append(n.files, attach.File{Path: im.Name, Image: &attach.Image{Image: im}})
		}
	}
	if !in.Empty() {
		texts = append(texts, in.Value())
	}
	in.SetValue(strings.Join(texts, "\n\n"))
}

// queuedReply is the reply of a stored run of session sessionID that has not started yet, as
// the transcript shows it.
func queuedReply(rcpt stored.Receipt, sessionID, modelName string) stored.Message {
	return stored.Message{
		ID: rcpt.ReplyID, SessionID: sessionID, Role: chat.RoleAssistant,
		AnchorID: rcpt.AnchorID, RunID: rcpt.RunID, Status: chat.StatusQueued, Model: modelName,
		Content: rcpt.Prefix, Seam: len(rcpt.Prefix),
	}
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

// cancelQueued stores queued runs as cancelled, so none is left waiting. It runs inside a
// command.
func cancelQueued(db Store, rcpts []stored.Receipt) error {
	for _, rcpt := range rcpts {
		if err := db.FinishRun(rcpt.RunID, stored.Finish{Status: chat.StatusCancelled}); err != nil {
			return err
		}
	}
	return nil
}

// cancelQueuedCmd stores queued runs as cancelled, from a command; nil when there are none.
func cancelQueuedCmd(db Store, rcpts []stored.Receipt) tea.Cmd {
	if len(rcpts) == 0 {
		return nil
	}
	return func() tea.Msg {
		if err := cancelQueued(db, rcpts); err != nil {
			return noticeMsg{text: "could not cancel a queued run: " + err.Error(), err: true}
		}
		return nil
	}
}

// quitAfterActive quits at once when no run is active, and otherwise cancels the active run
// and quits when it has ended (ctrl+d, /quit).
func (m *Model) quitAfterActive() tea.Cmd {
	if m.active == nil {
		return m.quit()
	}
	m.quitAfterRun = true
	m.cancelRun()
	return nil
}

// quit stores the queued runs as cancelled and the input as the session's draft, and ends the
// program. An input that ctrl+c just emptied (ctrl+c twice quits) keeps what it held as the
// draft: quitting was the point, not losing the text.
func (m *Model) quit() tea.Cmd {
	db, queue, sessionID, draft, files := m.db, m.queue, m.session.ID, m.input.Value(), toDraftFiles(m.next.files)
	if draft == "" {
		draft = m.cleared
	}
	m.queue = nil
	return func() tea.Msg {
		// Quitting either way: a run that could not be cancelled stays queued and shows so
		// at the next start, and a draft not stored now was stored within draftDelay.
		if db != nil {
			_ = cancelQueued(db, queue)
			_ = db.SetDraft(sessionID, draft)
			_ = db.SetDraftFiles(sessionID, files)
		}
		return tea.Quit()
	}
}

// stopMsg stops the screen as /quit does: the reply being written is cancelled, and stored so,
// before it quits.
type stopMsg struct{}

// Stop is the message that stops the screen from outside, on a signal.
func Stop() tea.Msg { return stopMsg{} }
