package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// This file owns what is typed and not sent: the draft of each session, stored so that it
// survives a quit (and, within draftDelay, a closed terminal); the draft ctrl+c clears, which
// ↑ brings back; and ↑/↓ on an empty input, which walk the operator's earlier messages.

// draftDelay is how long after the last change a draft is stored.
const draftDelay = time.Second

// draftState is how far the stored draft is behind the input.
type draftState struct {
	saved string // the draft as last stored or read, for the open session
	// rev is a revision of the input found to hold saved, or -1: while the input is at it,
	// a key need not read the whole text to know the draft is stored.
	rev     int
	pending bool // a draftTickMsg is on its way
}

// savedAs notes text as the stored draft; rev is the input's revision when it holds text, or
// -1 when it may not.
func (d *draftState) savedAs(text string, rev int) { d.saved, d.rev = text, rev }

// draftStored reports whether the input holds the stored draft. The text is read only when it
// has changed since it was last found to.
func (m *Model) draftStored() bool {
	if m.input.Rev() == m.draft.rev {
		return true
	}
	if m.input.Value() != m.draft.saved {
		return false
	}
	m.draft.rev = m.input.Rev()
	return true
}

// recall is the walk through earlier messages.
type recall struct {
	at   int    // the index in recallList of the text shown, -1 when not walking
	text string // that text, as put in the input: once it is edited, ↑ and ↓ move the cursor
}

// draftChanged asks for the draft to be stored a little later when the input differs from
// what was stored; one store at a time is pending.
func (m *Model) draftChanged() tea.Cmd {
	if m.db == nil || m.draft.pending || m.draftStored() {
		return nil
	}
	m.draft.pending = true
	sessionGen := m.sessionGen
	return tea.Tick(draftDelay, func(time.Time) tea.Msg { return draftTickMsg{sessionGen: sessionGen} })
}

// handleDraftTick stores the draft if it still differs from what was stored, and plans the
// next send with it. A tick asked for in a session since left is dropped: leaving stored that
// session's draft.
func (m *Model) handleDraftTick(msg draftTickMsg) tea.Cmd {
	m.draft.pending = false
	if msg.sessionGen != m.sessionGen {
		return m.draftChanged()
	}
	m.draftPlanned()
	if m.draftStored() {
		return nil
	}
	return m.storeDraft()
}

// storeDraft stores the input as the open session's draft, from a command.
func (m *Model) storeDraft() tea.Cmd {
	text := m.input.Value()
	m.draft.savedAs(text, m.input.Rev())
	return storeDraftCmd(m.db, m.session.ID, text)
}

// draftNotStored begins the notice of a draft that could not be stored: the next draft stored
// takes it away.
const draftNotStored = "could not store the draft: "

// storeDraftCmd stores text as session id's draft.
func storeDraftCmd(db Store, id, text string) tea.Cmd {
	return func() tea.Msg {
		if err := db.SetDraft(id, text); err != nil {
			return noticeMsg{text: draftNotStored + err.Error(), err: true}
		}
		return draftStoredMsg{}
	}
}

// clearDraft is ctrl+c on a draft: the input is emptied, and the text kept for ↑.
func (m *Model) clearDraft() {
	m.cleared = m.input.Value()
	m.input.Reset()
	m.recall = recall{at: -1}
	m.setNotice("draft cleared · "+m.keys.Input.Older.Help().Key+" brings it back · "+
		m.keys.Chat.Interrupt.Help().Key+" again quits", false)
}

// walking reports whether ↑ and ↓ walk earlier messages: the input is empty, or shows one of
// them unchanged.
func (m *Model) walking() bool {
	return m.input.Empty() || (m.recall.at >= 0 && m.input.Value() == m.recall.text)
}

// recallEarlier is how many texts sent in other sessions the walk reaches.
const recallEarlier = 1000

// recallList is what ctrl+p walks, newest first: the draft ctrl+c cleared, then what the
// operator sent in this session, then in earlier ones on the screen, each text once.
func (m *Model) recallList() []string {
	var list []string
	if m.cleared != "" {
		list = append(list, m.cleared)
	}
	list = append(list, m.transcript.OperatorTexts()...)
	seen := make(map[string]bool, len(list))
	for _, s := range list {
		seen[s] = true
	}
	for _, s := range m.typedElsewhere {
		if !seen[s] {
			list = append(list, s)
		}
	}
	return list
}

// recallStep shows the message step places older (1) or newer (-1) than the one shown; past
// the newest the input is empty again.
func (m *Model) recallStep(step int) {
	at := m.recall.at
	if m.input.Empty() {
		at = -1
	}
	list := m.recallList()
	at += step
	switch {
	case at < 0:
		m.input.Reset()
		m.recall = recall{at: -1}
	case at < len(list):
		m.input.SetValue(list[at])
		m.recall = recall{at: at, text: m.input.Value()}
	}
}
