package tui

import (
	"fmt"

	"parley/internal/chat"

	tea "charm.land/bubbletea/v2"
)

// This file keeps two windows on one session honest: a message is stored only if no other
// process stored messages in the session after those the screen shows (history.PostSeen), so
// the model is never sent a turn the operator was not shown. Refused, the text goes back to
// the input and the screen reads the session again.

// seenID is the newest stored message of the session the screen knows of: those it shows, and
// the replies of its runs under way or queued.
func (m *Model) seenID() int64 {
	id := m.transcript.Newest()
	if m.active != nil {
		id = max(id, m.active.rcpt.ReplyID)
	}
	for _, r := range m.queue {
		id = max(id, r.ReplyID)
	}
	return id
}

// refusedUnseen is a post refused because another process had stored n messages in the
// session: the texts come back to the input, and the session is read again, now or, while a
// reply is being written, once it ends.
func (m *Model) refusedUnseen(out outgoing, n int) tea.Cmd {
	m.giveBack(append([]outgoing{out}, m.outbox...))
	m.outbox = nil
	what := chat.Plural(n, "message")
	send := m.keys.Input.Send.Help().Key
	if m.active != nil || len(m.queue) > 0 {
		m.rereadWhenIdle = true
		m.setNotice(fmt.Sprintf("not sent: another parley added %s to this session — they show when this reply ends; read them, then %s sends yours", what, send), true)
		return nil
	}
	m.setNotice(fmt.Sprintf("not sent: another parley added %s to this session — shown now; read them, then %s sends yours", what, send), true)
	return m.rereadSession()
}

// rereadSession reads the open session's messages again, to show what another process stored.
func (m *Model) rereadSession() tea.Cmd {
	m.rereadWhenIdle = false
	sessionGen, db, id := m.sessionGen, m.db, m.session.ID
	return func() tea.Msg {
		msgs, err := db.TranscriptBefore(id, 0, firstScreen)
		return rereadMsg{sessionGen: sessionGen, msgs: msgs, err: err}
	}
}

// handleReread shows the session's messages as read again, at the bottom, and reads the older
// ones when only the newest were read.
func (m *Model) handleReread(msg rereadMsg) tea.Cmd {
	if !m.accepts(msg.sessionGen, msg.err, "read the session again") {
		return nil
	}
	m.transcript.Reset(msg.msgs)
	m.transcript.GotoBottom()
	if len(msg.msgs) == firstScreen {
		return m.loadOlder(msg.msgs[0].ID)
	}
	return nil
}
