package tui

import (
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/agent"
	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/sanitize"
	"parley/tui/inputbox"
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
	// db stores sessions, messages and runs; every read of the session is tagged with
	// sessionGen.
	db      Store
	session stored.Session
	// forkOf is where the session was forked from; nil for one that is no fork.
	forkOf *stored.Fork
	// sessionGen counts session switches; answers for an earlier session are dropped.
	sessionGen int
	// opening is set until the session read at start-up is shown (showSession).
	opening bool
}

// loadSession reads session id and its transcript.
func (s *sessionState) loadSession(id string) tea.Cmd {
	sessionGen, db := s.sessionGen, s.db
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
	m.runs.setHeld(false, m.transcript, m.keys.Chat.SendQueued.Help().Key)
	m.sessionGen++
	m.tier2.Disarm()
	if len(m.outbox) > 0 && m.input.Empty() {
		// Typed for the session being left and not stored yet: give it back, unsent.
		m.next.giveBack(m.outbox, &m.input)
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
// brought no error; an error is shown on n, as what could not be done.
func (s *sessionState) accepts(n *noticeLine, sessionGen int, err error, doing string) bool {
	if sessionGen != s.sessionGen {
		return false
	}
	if err != nil {
		n.setNotice("could not "+doing+": "+err.Error(), true)
		return false
	}
	return true
}

// handleSessionLoaded shows the session loaded, and reads what it has spent.
func (m *Model) handleSessionLoaded(msg sessionLoadedMsg) tea.Cmd {
	return tea.Batch(m.showSession(msg), m.sessionState.readSpent(m.spend, &m.endpoints), m.readMarks(), m.budget.fetch(&m.sessionState, &m.endpoints))
}

// showSession shows a session's transcript, and reads the older messages when only the newest
// were read.
func (m *Model) showSession(msg sessionLoadedMsg) tea.Cmd {
	if !m.accepts(&m.noticeLine, msg.sessionGen, msg.err, "open the session") {
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
	m.offerRetry(msg.msgs, m.clock.Now(), &m.keys, &m.noticeLine)
	m.revealFound()
	if len(msg.msgs) == firstScreen {
		return tea.Batch(opened, m.loadOlder(msg.msgs[0].ID))
	}
	return opened
}

// loadOlder reads the messages of the current session older than the first one shown.
func (s *sessionState) loadOlder(before int64) tea.Cmd {
	sessionGen, db, id := s.sessionGen, s.db, s.session.ID
	return func() tea.Msg {
		msgs, err := db.TranscriptBefore(id, before, 0)
		return olderLoadedMsg{sessionGen: sessionGen, msgs: msgs, err: err}
	}
}

// handleOlderLoaded puts the rest of a long session before what is shown.
func (m *Model) handleOlderLoaded(msg olderLoadedMsg) tea.Cmd {
	if !m.accepts(&m.noticeLine, msg.sessionGen, msg.err, "read the older messages") {
		return nil
	}
	m.transcript.Prepend(msg.msgs)
	m.revealFound()
	return nil
}

// readSpent reads what the session has spent (through spend), and what the provider last said
// is left of its limits (to e's client), for the header.
func (s *sessionState) readSpent(spend *agent.SpendGuard, e *endpoints) tea.Cmd {
	if spend == nil && e.client == nil {
		return nil
	}
	b, client, id, sessionGen := spend, e.client, s.session.ID, s.sessionGen
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

// This part keeps two windows on one session honest: a message is stored only if no other
// process stored messages in the session after those the screen shows (history.PostSeen), so
// the model is never sent a turn the operator was not shown. Refused, the text goes back to
// the input and the screen reads the session again.

// seenID is the newest stored message of the session the screen knows of: newest, the newest
// it shows, and the replies of its runs under way or queued.
func (r *runs) seenID(newest int64) int64 {
	id := newest
	if r.active != nil {
		id = max(id, r.active.rcpt.ReplyID)
	}
	for _, q := range r.queue {
		id = max(id, q.ReplyID)
	}
	return id
}

// refusedUnseen is a post refused because another process had stored n messages in the
// session: the texts come back to the input, and the session is read again, now or, while a
// reply is being written, once it ends.
func (m *Model) refusedUnseen(out outgoing, n int) tea.Cmd {
	m.next.giveBack(append([]outgoing{out}, m.outbox...), &m.input)
	m.outbox = nil
	what := chat.Plural(n, "message")
	send := m.keys.Input.Send.Help().Key
	if m.active != nil || len(m.queue) > 0 {
		m.rereadWhenIdle = true
		m.setNotice(fmt.Sprintf("not sent: another parley added %s to this session — they show when this reply ends; read them, then %s sends yours", what, send), true)
		return nil
	}
	m.setNotice(fmt.Sprintf("not sent: another parley added %s to this session — shown now; read them, then %s sends yours", what, send), true)
	return m.sessionState.reread(&m.runs)
}

// reread reads the open session's messages again, to show what another process stored; the
// runs (r) no longer wait to ask for it.
func (s *sessionState) reread(r *runs) tea.Cmd {
	r.rereadWhenIdle = false
	sessionGen, db, id := s.sessionGen, s.db, s.session.ID
	return func() tea.Msg {
		msgs, err := db.TranscriptBefore(id, 0, firstScreen)
		return rereadMsg{sessionGen: sessionGen, msgs: msgs, err: err}
	}
}

// handleReread shows the session's messages as read again, at the bottom, and reads the older
// ones when only the newest were read.
func (m *Model) handleReread(msg rereadMsg) tea.Cmd {
	if !m.accepts(&m.noticeLine, msg.sessionGen, msg.err, "read the session again") {
		return nil
	}
	m.transcript.Reset(msg.msgs)
	m.transcript.GotoBottom()
	if len(msg.msgs) == firstScreen {
		return m.loadOlder(msg.msgs[0].ID)
	}
	return nil
}

// This part owns /title, which renames the open session.

// titledMsg carries the session renamed by /title, or why it was not and the line to give
// back to the input.
type titledMsg struct {
	sessionGen int
	session    stored.Session
	err        error
	line       string
}

// titleCommand is /title TEXT: the session's title becomes TEXT. A session not stored yet is
// titled when its first message stores it. It reports whether it did what was asked.
func (m *Model) titleCommand(text string) (tea.Cmd, bool) {
	if text == "" {
		m.setNotice("/title TEXT renames this session", true)
		return nil, false
	}
	if m.session.ID == "" {
		m.next.title = text
		m.setNotice("no session yet: it is titled “"+sanitize.String(text)+"” when your first message makes it", false)
		return nil, true
	}
	db, id, sessionGen, line := m.db, m.session.ID, m.sessionGen, "/title "+text
	return func() tea.Msg {
		if err := db.SetTitle(id, text); err != nil {
			return titledMsg{sessionGen: sessionGen, err: err, line: line}
		}
		s, err := db.Session(id)
		return titledMsg{sessionGen: sessionGen, session: s, err: err, line: line}
	}, true
}

// titled shows on n the session's new title; a rename that failed gives its line back to the
// input (in) when it is empty.
func (s *sessionState) titled(msg titledMsg, n *noticeLine, in *inputbox.Box) {
	if !s.accepts(n, msg.sessionGen, msg.err, "rename the session") {
		if msg.err != nil && msg.sessionGen == s.sessionGen && in.Empty() {
			in.SetValue(msg.line)
		}
		return
	}
	s.session.Title = msg.session.Title
	n.setNotice("renamed: "+sanitize.String(msg.session.Title), false)
}

// This part owns forking (F on a message, /fork): a new session holding the conversation up
// to a message, linked to the session it came from, which is not changed.

// forkedMsg carries the session a fork made, or why it could not be made.
type forkedMsg struct {
	sessionGen int
	fork       stored.Session
	err        error
}

// forkAt forks the session at message id: through its reply when it is an operator message
// answered, through the last message when id is 0. Only on an idle screen, since a reply being
// written would be left half in the fork.
func (m *Model) forkAt(id int64) tea.Cmd {
	if id == 0 {
		id = m.transcript.Last()
	}
	if r := m.transcript.Reply(id); r != 0 {
		id = r
	}
	switch {
	case id == 0 || m.session.ID == "":
		m.setNotice("nothing to fork yet: send a message first", true)
		return nil
	case m.active != nil || len(m.queue) > 0 || m.posting:
		m.setNotice("a reply is being written: fork when it has ended", true)
		return nil
	}
	db, sessionGen, from := m.db, m.sessionGen, m.session.ID
	return func() tea.Msg {
		fork, err := db.Fork(from, id)
		return forkedMsg{sessionGen: sessionGen, fork: fork, err: err}
	}
}

// handleForked opens the fork just made.
func (m *Model) handleForked(msg forkedMsg) tea.Cmd {
	if !m.accepts(&m.noticeLine, msg.sessionGen, msg.err, "fork the session") {
		return nil
	}
	return m.switchTo(sessionByID(msg.fork.ID))
}

// forkLabel is what the header says of a session forked from another: `forked from "Trip
// planning" at 14:02` (the time as written at now); empty for a session that is no fork.
func (s *sessionState) forkLabel(now time.Time) string {
	f := s.forkOf
	if f == nil {
		return ""
	}
	from := "a deleted session"
	if f.OriginTitle != "" {
		from = fmt.Sprintf("%q", sanitize.String(f.OriginTitle))
	}
	return "forked from " + from + " at " + chat.FormatClock(f.At, now)
}
