package tui

import (
	"fmt"
	"strconv"

	tea "charm.land/bubbletea/v2"

	"parley/agent"
	"parley/internal/chat"
)

// This file owns what steers the context budget: p pins the selected message so that
// compaction never leaves it out, and /compact leaves the older messages out of every later
// request once the operator has seen which.

// pinnedMsg reports that message id was pinned or unpinned, or why not.
type pinnedMsg struct {
	sessionGen int
	id         int64
	pinned     bool
	err        error
}

// compactedMsg reports that /compact was stored, with what it left out, or why not.
type compactedMsg struct {
	sessionGen int
	leftOut    string
	err        error
}

// pinSelected pins the selected message, or unpins it when it is pinned.
func (m *Model) pinSelected() tea.Cmd {
	msg, ok := m.transcript.Message(m.transcript.Selected())
	if !ok || m.db == nil {
		return nil
	}
	db, gen, id, pin := m.db, m.sessionGen, msg.ID, !msg.Pinned
	return func() tea.Msg {
		return pinnedMsg{sessionGen: gen, id: id, pinned: pin, err: db.SetPinned(id, pin)}
	}
}

// handlePinned shows the pin, and weighs the next send again: a pin changes what it leaves out.
func (m *Model) handlePinned(msg pinnedMsg) tea.Cmd {
	if !m.accepts(msg.sessionGen, msg.err, "pin the message") {
		return nil
	}
	m.transcript.SetPinned(msg.id, msg.pinned)
	n := m.transcript.Number(msg.id)
	if msg.pinned {
		m.setNotice(fmt.Sprintf("#%d pinned: compaction never leaves it out (%s unpins)", n, m.keys.Transcript.Pin.Help().Key), false)
	} else {
		m.setNotice(fmt.Sprintf("#%d unpinned", n), false)
	}
	return m.readBudget()
}

// compactCommand is /compact [N]: it leaves out of every later request what the next send
// would leave out, or with N all but the last N turns; pinned messages and the system prompt
// stay. It first says what that is, and acts when asked again.
func (m *Model) compactCommand(args string, pending confirm) (tea.Cmd, bool) {
	keep := 0
	if args != "" {
		n, err := strconv.Atoi(args)
		if err != nil || n < 1 {
			m.setNotice("/compact takes the number of recent turns to keep, like /compact 2", true)
			return nil, false
		}
		keep = n
	}
	cut := m.compactCut(keep)
	if cut == 0 {
		m.setNotice("nothing to compact: the next send leaves no message out · /compact N keeps only the last N turns", false)
		return nil, true
	}
	var left, kept []chat.Message
	var nums []int
	for i, msg := range m.budget.msgs {
		if msg.Role != chat.RoleSystem && !msg.Pinned && m.budget.ids[i] < cut {
			left = append(left, msg)
			nums = append(nums, m.transcript.Number(m.budget.ids[i]))
		} else {
			kept = append(kept, msg)
		}
	}
	tokens := agent.EstimateTokens(m.budget.msgs) - agent.EstimateTokens(kept)
	if p := m.budget.plan; keep == 0 && p.Images == 0 {
		tokens = p.LeftOut // what the line above the input says: the same messages
	}
	what := fmt.Sprintf("%s · ~%s tok", messagesNamed(nums, len(left)), chat.FormatTokens(tokens))
	c := confirm{action: "compact", id: cut}
	if pending != c {
		m.ask(c, "/compact leaves out "+what+" from every later request (pinned ones stay; the history keeps all) · "+
			m.keys.Input.Send.Help().Key+" again applies it, any other key keeps them")
		return nil, false
	}
	db, gen, id := m.db, m.sessionGen, m.session.ID
	return func() tea.Msg {
		return compactedMsg{sessionGen: gen, leftOut: what, err: db.CompactBefore(id, cut)}
	}, true
}

// compactCut is the message /compact cuts before, keeping the last keep turns (0: leaving out
// what the plan of the next send leaves out, which may be every turn before the message being
// typed); 0 when that leaves nothing out.
func (m *Model) compactCut(keep int) int64 {
	b := m.budget
	if !b.read || len(b.msgs) == 0 {
		return 0
	}
	if keep > 0 {
		var turns []int64 // the operator messages, oldest first
		for i, msg := range b.msgs {
			if msg.Role == chat.RoleUser {
				turns = append(turns, b.ids[i])
			}
		}
		if keep >= len(turns) {
			return 0
		}
		return turns[len(turns)-keep]
	}
	// The plan leaves out the oldest turns, system prompts and pinned messages aside: the cut
	// is at the first message it keeps of the others, or after the last it leaves out.
	cut := int64(0)
	for i, msg := range b.msgs {
		switch {
		case b.plan.Drop[i]:
			cut = b.ids[i] + 1
		case msg.Role == chat.RoleSystem || msg.Pinned:
		case cut != 0:
			return b.ids[i]
		default:
			return 0 // the next send leaves nothing out
		}
	}
	return cut
}

// handleCompacted says what /compact left out, and weighs the next send again.
func (m *Model) handleCompacted(msg compactedMsg) tea.Cmd {
	if !m.accepts(msg.sessionGen, msg.err, "compact the session") {
		return nil
	}
	m.setNotice("compacted: "+msg.leftOut+" left out of every later request", false)
	return m.readBudget()
}
