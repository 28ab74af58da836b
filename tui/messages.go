package tui

import (
	"parley/agent"
	"parley/agent/chat"
	"parley/history"
)

// sessionLoadedMsg carries a session and its stored transcript, read at start-up or on a
// switch. gen is the session generation it was asked for.
type sessionLoadedMsg struct {
	gen     int
	session history.Session
	msgs    []history.Message
	err     error
}

// olderLoadedMsg carries the messages of a long session older than those its first frame showed.
type olderLoadedMsg struct {
	gen  int
	msgs []history.Message
	err  error
}

// postedMsg reports that an operator message was stored, with the run made for it, or why it
// was not stored.
type postedMsg struct {
	gen     int
	text    string
	model   string
	rcpt    history.Receipt
	session history.Session // reread: the first message gives the session its title
	err     error
}

// runStartedMsg carries the event channel of a run whose request is on its way.
type runStartedMsg struct {
	run    int
	events <-chan chat.Event
}

// runEventsMsg carries the events of a run that were ready at once, in order. closed is set
// when the channel was closed after them.
type runEventsMsg struct {
	run    int
	events []chat.Event
	ch     <-chan chat.Event
	closed bool
}

// spentMsg carries what session gen's session has spent, read after a run ends.
type spentMsg struct {
	gen   int
	spent agent.Spent
	err   error
}

// frameMsg asks for the streaming reply of run to be rendered again.
type frameMsg struct{ run int }

// sessionsMsg carries the stored sessions for the picker.
type sessionsMsg struct {
	sessions []history.Session
	err      error
}

// noticeMsg is one line for the status line: a command's answer or an error.
type noticeMsg struct {
	text string
	err  bool
}

// regeneratedMsg reports a regeneration stored by history, or why it was not. auto marks a
// Tier 2 retry, sent in Tier 2 generation tier2; the operator's own (r, /regen) are not.
type regeneratedMsg struct {
	gen   int
	tier2 int
	auto  bool
	model string
	rcpt  history.Receipt
	err   error
}

// storedRunMsg carries a failed run as the database stored it, read back so that Tier 2
// arms from the stored classification. tier2 is the Tier 2 generation when it was asked for.
type storedRunMsg struct {
	gen   int
	tier2 int
	run   history.Run
	err   error
}

// tier2TickMsg is a tick of the Tier 2 countdown of generation gen.
type tier2TickMsg struct{ gen int }

// versionsMsg carries every version of reply's answer to its anchor, oldest first, for the
// version view; dir is -1 to show the one before reply, +1 the one after.
type versionsMsg struct {
	gen      int
	reply    int64
	dir      int
	versions []history.Message
	err      error
}
