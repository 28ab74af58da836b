package tui

import (
	"errors"

	tea "charm.land/bubbletea/v2"

	"parley/history"
)

// This file owns continuing a cut reply (c): a new version of it goes on from where its run
// stopped, the text so far sent as the assistant's turn for the model to continue.

// cutReply is the reply an armed Tier 2 retry would regenerate, when it was cut with text
// that can be gone on from; 0 otherwise.
func (m *Model) cutReply() int64 {
	if !m.tier2.Armed() {
		return 0
	}
	if id := m.transcript.ReplyTo(m.tier2.Anchor()); m.transcript.Continuable(id) {
		return id
	}
	return 0
}

// continueReply continues reply id: it is kept as a version, and a new one begins with its
// text and goes on from it, queued behind an active run. It disarms Tier 2, as r does.
func (m *Model) continueReply(id int64) tea.Cmd {
	switch {
	case !m.transcript.Continuable(id):
		m.setNotice("this reply was not cut: "+m.keys.Transcript.Regenerate.Help().Key+" regenerates it", false)
		return nil
	case m.posting:
		m.setNotice("a message is being stored; continue again in a moment", true)
		return nil
	}
	m.tier2.Disarm()
	m.setHeld(false)
	m.posting = true
	db, sessionGen, modelName, queued := m.db, m.sessionGen, m.modelName(), m.busy()
	return func() tea.Msg {
		rcpt, err := db.Continue(id, modelName, queued)
		if errors.Is(err, history.ErrNothingToContinue) {
			err = errors.New("the reply has no text to go on from, or is still being written")
		}
		msg := regeneratedMsg{sessionGen: sessionGen, modelName: modelName, rcpt: rcpt, err: err, continued: true}
		if err == nil && rcpt.Pending {
			// A reply that called tools goes on from their results, as a retry does.
			if reply, err := db.Message(rcpt.ReplyID); err == nil {
				msg.resumed = &reply
			}
		}
		return msg
	}
}
