package tui

import (
	"errors"
	"slices"

	tea "charm.land/bubbletea/v2"

	"parley/agent"
	"parley/history"
	"parley/history/stored"
	"parley/internal/chat"
	"parley/retry"
	"parley/tui/transcript"
)

// This file owns regeneration: r and /regen by hand, and every Tier 2 retry, supersede a
// reply and what follows it and run its anchor again.

// regenerateReply regenerates reply id by hand (r, /regen): it supersedes the reply and
// everything after it and runs its anchor again, queued behind an active run. It disarms
// Tier 2.
func (m *Model) regenerateReply(id int64) tea.Cmd { return m.regenerateOn(id, nil) }

// regenerateOn is regenerateReply sent with client (R), nil for the screen's.
func (m *Model) regenerateOn(id int64, client *agent.Client) tea.Cmd {
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
	m.runs.setHeld(false, m.transcript, m.keys.Chat.SendQueued.Help().Key) // regenerating goes on: what was held goes first
	return m.regenerate(anchor, false, client)
}

// regenerate stores a regeneration from the operator message anchor: the path of r, /regen
// and every Tier 2 retry. auto marks a Tier 2 retry, tied to the current Tier 2 token; it is
// stored with history.Retry, so that it replaces the reply only once it has output. client,
// when not nil, is the client the run goes to instead of the screen's. Like a posted message
// it holds back other messages until it is stored, so the two never supersede each other by
// racing.
func (m *Model) regenerate(anchor int64, auto bool, client *agent.Client) tea.Cmd {
	m.posting = true
	modelName := m.modelName()
	if client != nil {
		modelName = client.Endpoint().Model
	}
	db, sessionGen, token, queued, failed := m.db, m.sessionGen, m.tier2.Token(), m.busy(), m.tier2.Failed()
	return func() tea.Msg {
		var rcpt stored.Receipt
		var err error
		if auto {
			// A retry resumes from the stored results of a run that called tools: no tool
			// that ran runs again.
			rcpt, err = db.RetryRun(failed, modelName, queued)
		} else {
			rcpt, err = db.Regenerate(anchor, modelName, queued)
		}
		msg := regeneratedMsg{sessionGen: sessionGen, tier2Token: token, auto: auto, modelName: modelName, client: client, rcpt: rcpt, err: err}
		if err == nil && auto {
			if reply, err := db.Message(rcpt.ReplyID); err == nil && len(reply.ToolCalls) > 0 {
				msg.resumed = &reply
			}
		}
		return msg
	}
}

// handleRegenerated shows a stored regeneration: the superseded messages leave the
// transcript, the new reply joins it, and its run starts or queues. A Tier 2 retry cancelled
// (or replaced) while it was being stored is stored cancelled instead, and never sent.
func (m *Model) handleRegenerated(msg regeneratedMsg) tea.Cmd {
	m.posting = false
	db := m.db
	if msg.sessionGen != m.sessionGen {
		// The session was left meanwhile; its run must not wait forever.
		if msg.err == nil {
			return tea.Batch(cancelQueuedCmd(db, []stored.Receipt{msg.rcpt}), m.postNext())
		}
		return m.postNext()
	}
	if msg.err != nil {
		if msg.auto && msg.tier2Token == m.tier2.Token() {
			m.tier2.Disarm()
		}
		what := "regenerate"
		if msg.continued {
			what = "continue"
		}
		m.setNotice("could not "+what+": "+msg.err.Error(), true)
		return m.postNext()
	}
	rcpt := msg.rcpt
	if msg.client != nil {
		m.runClients[rcpt.RunID] = msg.client
	}
	if msg.resumed != nil {
		m.resumed[rcpt.ReplyID] = *msg.resumed
	}
	drop := m.supersede(rcpt.Superseded)
	if !rcpt.Pending {
		m.transcript.Append(queuedReply(rcpt, m.session.ID, msg.modelName))
		if m.focus == focusTranscript {
			m.transcript.SelectLast()
		}
		m.transcript.GotoBottom()
	}
	if msg.auto && !m.tier2.Sent(msg.tier2Token, rcpt.RunID) {
		m.transcript.SetStatus(rcpt.ReplyID, chat.StatusCancelled, nil)
		drop = append(drop, rcpt)
		return tea.Batch(cancelQueuedCmd(db, drop), m.postNext())
	}
	m.queue = append(m.queue, rcpt)
	var start tea.Cmd
	if m.active == nil && !m.held {
		start = m.dispatchNext()
	}
	return tea.Batch(cancelQueuedCmd(db, drop), start, m.postNext())
}

// supersede takes the superseded messages off the transcript and out of the queue, and returns
// the queued runs whose replies were superseded: they must never be sent.
func (m *Model) supersede(ids []int64) (drop []stored.Receipt) {
	m.transcript.Remove(ids)
	var keep []stored.Receipt
	for _, q := range m.queue {
		if slices.Contains(ids, q.ReplyID) {
			drop = append(drop, q)
		} else {
			keep = append(keep, q)
		}
	}
	m.queue = keep
	return drop
}

// This part owns continuing a cut reply (c): a new version of it goes on from where its run
// stopped, the text so far sent as the assistant's turn for the model to continue.

// cutReply is the reply of t an armed Tier 2 retry would regenerate, when it was cut with text
// that can be gone on from; 0 otherwise.
func cutReply(t *transcript.List, tier2 *retry.Tier2) int64 {
	if !tier2.Armed() {
		return 0
	}
	if id := t.ReplyTo(tier2.Anchor()); t.Continuable(id) {
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
	m.runs.setHeld(false, m.transcript, m.keys.Chat.SendQueued.Help().Key)
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
