package tui

import (
	"errors"

	tea "charm.land/bubbletea/v2"

	"parley/history/stored"
)

// This file owns the open session: reading it (its newest messages first, then the rest),
// switching to another, and reading what it has spent.

// firstScreen is how many of a session's newest messages are read before its first frame; the
// older ones follow in a second read, so a long session opens as fast as a short one.
const firstScreen = 200

// opener opens a session in the database: a new one, or one by its id.
type opener func(Store) (stored.Session, error)

// sessionByID opens the stored session id; "" is a new session.
func sessionByID(id string) opener {
	if id == "" {
		return newSession
	}
	return func(db Store) (stored.Session, error) { return db.Session(id) }
}

// newSession opens a new session (/new). It has no id until its first message is stored, with
// it: a session left without a word is not stored at all.
func newSession(Store) (stored.Session, error) { return stored.Session{}, nil }

// readSession opens a session and reads its newest messages and its draft. It runs inside a
// command.
func readSession(db Store, sessionGen int, open opener) sessionLoadedMsg {
	s, err := open(db)
	if err != nil {
		return sessionLoadedMsg{sessionGen: sessionGen, err: err}
	}
	var msgs []stored.Message
	var earlier int
	var system stored.SystemPrompt
	var forkOf *stored.Fork
	if s.ID != "" {
		f, forked, err := db.ForkOf(s.ID)
		if err != nil {
			return sessionLoadedMsg{sessionGen: sessionGen, err: err}
		}
		if forked {
			forkOf = &f
		}
		if msgs, err = db.TranscriptBefore(s.ID, 0, firstScreen); err != nil {
			return sessionLoadedMsg{sessionGen: sessionGen, err: err}
		}
		if len(msgs) == firstScreen {
			if earlier, err = db.CountBefore(s.ID, msgs[0].ID); err != nil {
				return sessionLoadedMsg{sessionGen: sessionGen, err: err}
			}
		}
		if system, err = db.SystemPrompt(s.ID); err != nil {
			return sessionLoadedMsg{sessionGen: sessionGen, err: err}
		}
	}
	draft, err := db.Draft(s.ID)
	if err != nil {
		return sessionLoadedMsg{sessionGen: sessionGen, err: err}
	}
	typed, err := db.Typed(s.ID, recallEarlier)
	if err != nil {
		return sessionLoadedMsg{sessionGen: sessionGen, err: err}
	}
	files, err := db.DraftFiles(s.ID)
	return sessionLoadedMsg{sessionGen: sessionGen, session: s, msgs: msgs, earlier: earlier, system: system, draft: draft,
		typed: typed, files: fromDraftFiles(files), forkOf: forkOf, err: err}
}

// sessionState is the open session as the screen keeps it. Model embeds it.
type sessionState struct {
	session stored.Session
	// forkOf is where the session was forked from; nil for one that is no fork.
	forkOf *stored.Fork
	// sessionGen counts session switches; answers for an earlier session are dropped.
	sessionGen int
	// opening is set until the session read at start-up is shown (showSession).
	opening bool
}

// loadSession reads session id and its transcript.
func (m *Model) loadSession(id string) tea.Cmd {
	sessionGen, db := m.sessionGen, m.db
	return func() tea.Msg { return readSession(db, sessionGen, sessionByID(id)) }
}

// switchTo leaves the current session, cancelling its active and queued runs, and opens the
// session that open returns.
func (m *Model) switchTo(open opener) tea.Cmd {
	if m.active != nil {
		m.active.cancel() // stored as cancelled by its recorder; its events are drained unseen
		m.active = nil
	}
	queue := m.queue
	m.queue = nil
	m.setHeld(false)
	m.sessionGen++
	m.tier2.Disarm()
	if len(m.outbox) > 0 && m.input.Empty() {
		// Typed for the session being left and not stored yet: give it back, unsent.
		m.giveBack(m.outbox)
	}
	m.outbox = nil
	// The input belongs to the session being left: it is stored as that session's draft.
	leaving, draft, files := m.session.ID, m.input.Value(), toDraftFiles(m.next.files)
	m.input.Reset()
	m.next.files, m.next.title = nil, ""
	m.draft.savedAs(draft, -1)
	m.recall, m.cleared, m.finding = recall{at: -1}, "", finding{}
	sessionGen, db := m.sessionGen, m.db
	return func() tea.Msg {
		if err := errors.Join(cancelQueued(db, queue), db.SetDraft(leaving, draft), db.SetDraftFiles(leaving, files)); err != nil {
			return sessionLoadedMsg{sessionGen: sessionGen, err: err}
		}
		return readSession(db, sessionGen, open)
	}
}

// accepts reports whether an answer asked under sessionGen is for the open session and
// brought no error; an error is shown, as what could not be done.
func (m *Model) accepts(sessionGen int, err error, doing string) bool {
	if sessionGen != m.sessionGen {
		return false
	}
	if err != nil {
		m.setNotice("could not "+doing+": "+err.Error(), true)
		return false
	}
	return true
}

// handleSessionLoaded shows the session loaded, and reads what it has spent.
func (m *Model) handleSessionLoaded(msg sessionLoadedMsg) tea.Cmd {
	return tea.Batch(m.showSession(msg), m.readSpent(), m.readMarks(), m.readBudget())
}

// showSession shows a session's transcript, and reads the older messages when only the newest
// were read.
func (m *Model) showSession(msg sessionLoadedMsg) tea.Cmd {
	if !m.accepts(msg.sessionGen, msg.err, "open the session") {
		return nil
	}
	m.session, m.forkOf = msg.session, msg.forkOf
	if m.opening && m.transcript.Len() > 0 {
		// Sent before the session read at start-up answered (a loaded machine, a quick
		// typist): what the screen shows stays as it is, a reply streaming into it too, since
		// the read may have come before it was stored. What the session had before goes above.
		var before []stored.Message
		oldest := m.transcript.Oldest()
		for _, s := range msg.msgs {
			if s.ID < oldest {
				before = append(before, s)
			}
		}
		m.transcript.Prepend(before)
	} else {
		m.transcript.Reset(msg.msgs)
	}
	m.opening = false
	m.transcript.SetEarlier(msg.earlier)
	m.focus = focusInput
	m.input.Focus()
	m.draft.savedAs(msg.draft, -1)
	m.typedElsewhere = msg.typed
	if m.input.Empty() {
		m.input.SetValue(msg.draft)
	}
	if len(m.next.files) == 0 {
		m.next.files = msg.files
	}
	// Nothing found at start-up is retried by itself: a reply cut off by a crash, or failed, is
	// offered to the operator instead (offerRetry).
	opened := m.sessionOpened(msg.system, msg.msgs)
	m.offerRetry(msg.msgs)
	m.revealFound()
	if len(msg.msgs) == firstScreen {
		return tea.Batch(opened, m.loadOlder(msg.msgs[0].ID))
	}
	return opened
}

// loadOlder reads the messages of the current session older than the first one shown.
func (m *Model) loadOlder(before int64) tea.Cmd {
	sessionGen, db, id := m.sessionGen, m.db, m.session.ID
	return func() tea.Msg {
		msgs, err := db.TranscriptBefore(id, before, 0)
		return olderLoadedMsg{sessionGen: sessionGen, msgs: msgs, err: err}
	}
}

// handleOlderLoaded puts the rest of a long session before what is shown.
func (m *Model) handleOlderLoaded(msg olderLoadedMsg) tea.Cmd {
	if !m.accepts(msg.sessionGen, msg.err, "read the older messages") {
		return nil
	}
	m.transcript.Prepend(msg.msgs)
	m.revealFound()
	return nil
}

// readSpent reads what the session has spent, and what the provider last said is left of its
// limits, for the header.
func (m *Model) readSpent() tea.Cmd {
	if m.spend == nil && m.client == nil {
		return nil
	}
	b, client, id, sessionGen := m.spend, m.client, m.session.ID, m.sessionGen
	return func() tea.Msg {
		msg := spentMsg{sessionGen: sessionGen}
		if b != nil {
			msg.spent, msg.err = b.Session(id)
		}
		if client != nil {
			msg.limits, msg.known = client.RateLimits()
		}
		return msg
	}
}

// handleSpent shows what the session has spent, unless it could not be read, and what is left
// of the provider's limits.
func (m *Model) handleSpent(msg spentMsg) tea.Cmd {
	if msg.sessionGen != m.sessionGen {
		return nil
	}
	if msg.err == nil {
		m.spent = msg.spent
	}
	m.limits, m.limitsKnown = msg.limits, msg.known
	return nil
}
