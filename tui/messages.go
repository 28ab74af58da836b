package tui

import (
	"parley/agent"
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
	events <-chan agent.Event
}

// runEventsMsg carries the events of a run that were ready at once, in order. closed is set
// when the channel was closed after them.
type runEventsMsg struct {
	run    int
	events []agent.Event
	ch     <-chan agent.Event
	closed bool
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
