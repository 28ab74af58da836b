package tui

import (
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/sanitize"
)

// This file owns forking (F on a message, /fork): a new session holding the conversation up
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
	if !m.accepts(msg.sessionGen, msg.err, "fork the session") {
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
