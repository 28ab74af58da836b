package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/tui/inputbox"
)

// This file owns what is typed and not sent: the draft of each session, stored so that it
// survives a quit (and, within draftDelay, a closed terminal); the draft ctrl+c clears, which
// ↑ brings back; and ↑/↓ on an empty input, which walk the operator's earlier messages.

// draftDelay is how long after the last change a draft is stored.
const draftDelay = time.Second

// drafts is what is typed and not sent, as the screen keeps it: how far the stored draft is
// behind the input, the draft ctrl+c cleared, and the walk through earlier messages. Model
// embeds it.
type drafts struct {
	// draft is how far the stored draft is behind the input.
	draft draftState
	// cleared is the draft ctrl+c emptied the input of: the first text ↑ brings back.
	cleared string
	recall  recall
	// typedElsewhere is what was sent on the screen in other sessions, newest first: the walk
	// goes on into it after this session's messages.
	typedElsewhere []string
}

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

// draftStored reports whether in holds the stored draft. The text is read only when it has
// changed since it was last found to.
func (d *drafts) draftStored(in *inputbox.Box) bool {
	if in.Rev() == d.draft.rev {
		return true
	}
	if in.Value() != d.draft.saved {
		return false
	}
	d.draft.rev = in.Rev()
	return true
}

// recall is the walk through earlier messages.
type recall struct {
	at   int    // the index in recallList of the text shown, -1 when not walking
	text string // that text, as put in the input: once it is edited, ↑ and ↓ move the cursor
}

// storeLater asks for the draft to be stored a little later when the input (in) differs from
// what was stored for the open session (s); one store at a time is pending.
func (d *drafts) storeLater(s *sessionState, in *inputbox.Box) tea.Cmd {
	if s.db == nil || d.draft.pending || d.draftStored(in) {
		return nil
	}
	d.draft.pending = true
	sessionGen := s.sessionGen
	return tea.Tick(draftDelay, func(time.Time) tea.Msg { return draftTickMsg{sessionGen: sessionGen} })
}

// handleDraftTick stores the draft if it still differs from what was stored, and plans the
// next send with it. A tick asked for in a session since left is dropped: leaving stored that
// session's draft.
func (m *Model) handleDraftTick(msg draftTickMsg) tea.Cmd {
	m.draft.pending = false
	if msg.sessionGen != m.sessionGen {
		return m.drafts.storeLater(&m.sessionState, &m.input)
	}
	m.budget.draftPlanned(&m.input, m.transcript.Number, m.keys.Transcript.Pin.Help().Key)
	if m.draftStored(&m.input) {
		return nil
	}
	return m.drafts.store(&m.sessionState, &m.input)
}

// store stores the input (in) as the open session's (s) draft, from a command.
func (d *drafts) store(s *sessionState, in *inputbox.Box) tea.Cmd {
	text := in.Value()
	d.draft.savedAs(text, in.Rev())
	return storeDraftCmd(s.db, s.session.ID, text)
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

// clear is ctrl+c on a draft: the input (in) is emptied, and the text kept for ↑. The notice
// says ctrl+c again quits only when it would (quits): else that press asks first.
func (d *drafts) clear(in *inputbox.Box, k *KeyMap, n *noticeLine, quits bool) {
	d.cleared = in.Value()
	in.Reset()
	d.recall = recall{at: -1}
	text := "draft cleared · " + k.Input.Older.Help().Key + " brings it back"
	if quits {
		text += " · " + k.Chat.Interrupt.Help().Key + " again quits"
	}
	n.setNotice(text, false)
}

// walking reports whether ↑ and ↓ walk earlier messages: in is empty, or shows one of them
// unchanged.
func (d *drafts) walking(in *inputbox.Box) bool {
	return in.Empty() || (d.recall.at >= 0 && in.Value() == d.recall.text)
}

// recallEarlier is how many texts sent in other sessions the walk reaches.
const recallEarlier = 1000

// recallList is what ctrl+p walks, newest first: the draft ctrl+c cleared, then sent (what the
// operator sent in this session), then what was sent in earlier ones on the screen, each text
// once.
func (d *drafts) recallList(sent []string) []string {
	var list []string
	if d.cleared != "" {
		list = append(list, d.cleared)
	}
	list = append(list, sent...)
	seen := make(map[string]bool, len(list))
	for _, s := range list {
		seen[s] = true
	}
	for _, s := range d.typedElsewhere {
		if !seen[s] {
			list = append(list, s)
		}
	}
	return list
}

// recallStep shows in in the message step places older (1) or newer (-1) than the one shown,
// of recallList(sent); past the newest in is empty again.
func (d *drafts) recallStep(in *inputbox.Box, sent []string, step int) {
	at := d.recall.at
	if in.Empty() {
		at = -1
	}
	list := d.recallList(sent)
	at += step
	switch {
	case at < 0:
		in.Reset()
		d.recall = recall{at: -1}
	case at < len(list):
		in.SetValue(list[at])
		d.recall = recall{at: at, text: in.Value()}
	}
}
