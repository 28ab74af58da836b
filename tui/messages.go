package tui

import (
	"parley/agent"
	"parley/history/stored"
	"parley/internal/attach"
	"parley/internal/chat"
)

// Every message that answers for a session carries the session generation it was asked in
// (sessionGen), and is dropped when the operator has switched sessions since. Messages of the
// active run carry its tag, and those of Tier 2 its token.

// sessionLoadedMsg carries a session and its stored transcript, read at start-up or on a
// switch.
type sessionLoadedMsg struct {
	sessionGen int
	session    stored.Session
	msgs       []stored.Message
	earlier    int                 // the operator messages and replies before msgs, read later
	system     stored.SystemPrompt // the session's own
	draft      string              // what was typed in it and not sent
	typed      []string            // what was sent on the screen in other sessions, newest first
	files      []attach.File       // the files attached to that draft
	forkOf     *stored.Fork        // where it was forked from; nil for no fork
	err        error
}

// olderLoadedMsg carries the messages of a long session older than those its first frame showed.
type olderLoadedMsg struct {
	sessionGen int
	msgs       []stored.Message
	err        error
}

// postedMsg reports that an operator message was stored, with the run made for it, or why it
// was not stored.
type postedMsg struct {
	sessionGen int
	out        outgoing
	modelName  string
	rcpt       stored.Receipt
	system     stored.Message // the system prompt stored before it, ID 0 when none was
	session    stored.Session // reread: the first message gives the session its title
	err        error
}

// runStartedMsg carries the event channel of the active run whose request is on its way.
type runStartedMsg struct {
	tag    int
	events <-chan chat.Event
	// toolErrs are the tool servers that could not be started, each error naming its server.
	toolErrs []string
}

// runEventsMsg carries the events of a run that were ready at once, in order. closed is set
// when the channel was closed after them.
type runEventsMsg struct {
	tag    int
	events []chat.Event
	ch     <-chan chat.Event
	closed bool
}

// spentMsg carries what the session has spent, read after a run ends, and what the provider
// last said is left of its limits (known is false when it never said).
type spentMsg struct {
	sessionGen int
	spent      agent.Spent
	err        error
	limits     chat.Remaining
	known      bool
}

// frameMsg asks for the streaming reply, and unfinished renders, to be rendered again; tag is
// the newest run's when it was asked for.
type frameMsg struct{ tag int }

// sessionsMsg carries the stored sessions for the picker.
type sessionsMsg struct {
	sessions []stored.Session
	err      error
}

// draftStoredMsg says a draft was stored.
type draftStoredMsg struct{}

// noticeMsg is one line for the status line: a command's answer or an error. giveBack is the
// command line to put back in an empty input, when the command failed.
type noticeMsg struct {
	text     string
	err      bool
	giveBack string
}

// draftTickMsg asks for the draft of the session opened under sessionGen to be stored, if it
// changed since it last was.
type draftTickMsg struct{ sessionGen int }

// restoredMsg reports that a version of a reply was restored, or why not.
type restoredMsg struct {
	sessionGen int
	reply      int64
	number     int // the version's number in the view
	err        error
}

// regeneratedMsg reports a regeneration stored by history, or why it was not. auto marks a
// Tier 2 retry, sent under tier2Token; the operator's own (r, /regen) are not.
type regeneratedMsg struct {
	sessionGen int
	tier2Token int
	auto       bool
	modelName  string
	client     *agent.Client // nil: the screen's
	rcpt       stored.Receipt
	// resumed is, for a retry resumed from stored tool results, its reply as stored: the text
	// and calls it begins with.
	resumed *stored.Message
	err     error
	// continued is set for a reply that goes on from a cut one (c), not one run again.
	continued bool
}

// storedRunMsg carries a failed run as the database stored it, read back so that Tier 2
// arms from the stored classification. tier2Token is the Tier 2 token when it was asked for.
type storedRunMsg struct {
	sessionGen int
	tier2Token int
	stored     stored.Run
	err        error
}

// tier2TickMsg is a tick of the Tier 2 countdown armed under token.
type tier2TickMsg struct{ token int }

// versionsMsg carries every version of reply's answer to its anchor, oldest first, for the
// version view; dir is -1 to show the one before reply, +1 the one after.
type versionsMsg struct {
	sessionGen int
	reply      int64
	dir        int
	versions   []stored.Message
	// questions holds the operator messages of versions that answer an earlier text of the
	// question (an edit), by id.
	questions map[int64]stored.Message
	carried   map[int64][]stored.Message // the turns each superseded version went on with
	err       error
}

// pasteTickMsg says the gap has passed since the key that made an enter wait, or began a paste
// that arrives as keys (keypaste.go); tag names the wait.
type pasteTickMsg struct{ tag int }

// rereadMsg carries the open session's messages read again, to show what another process stored
// in it (session.go).
type rereadMsg struct {
	sessionGen int
	msgs       []stored.Message
	err        error
}
