// Package tui is parley's chat screen: a Bubble Tea program that streams replies from an
// OpenAI-compatible endpoint into a scrollable transcript, stores every message as it goes,
// and says plainly when a run is waiting, retrying, cancelled or failed.
package tui

import (
	"fmt"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"parley/agent"
	"parley/agent/chat"
	"parley/agent/demo"
	"parley/history"
)

// Options is what the screen needs to run.
type Options struct {
	// DB stores sessions, messages and runs.
	DB *history.DB
	// Client sends requests to the endpoint.
	Client *agent.Client
	// Session is the session to open.
	Session history.Session
	// Demo is the built-in demo endpoint when it is the one in use, for /demo commands; nil
	// otherwise.
	Demo *demo.Server
	// Clock times runs and their storage. Nil means the system clock.
	Clock chat.Clock
	// Budget holds runs to the spend limits, and prices the session's spend for the header.
	// Nil checks and shows nothing.
	Budget *agent.Budget
}

// focus is the part of the screen that receives typed keys.
type focus int

const (
	focusInput      focus = iota // the message being written
	focusTranscript              // selecting replies
	focusPicker                  // choosing a session
	focusVersions                // reading the versions of a reply
)

// maxInputHeight is the most lines the input grows to before it scrolls.
const maxInputHeight = 8

// Model is parley's chat screen, the program's only tea.Model.
type Model struct {
	db      *history.DB
	client  *agent.Client
	demo    *demo.Server
	clock   chat.Clock
	budget  *agent.Budget
	session history.Session
	// sessionGen counts session switches; answers for an earlier session are dropped.
	sessionGen int

	width, height int
	dark          bool
	styles        *theme
	keys          KeyMap
	help          help.Model
	input         inputBox
	spinner       spinner.Model
	transcript    *transcriptView
	focus         focus
	picker        picker
	versions      versionView

	// active is the run whose reply is streaming (or about to), nil when none is.
	active *activeRun
	// lastRunTag is the tag of the newest active run: each run started takes the next one,
	// and its messages carry it.
	lastRunTag int
	// queue holds stored runs waiting for the active one to end, oldest first.
	queue []history.Receipt
	// outbox holds messages typed while an earlier one is being stored; posting one at a
	// time keeps them in the order they were typed. posting is set while a message or a
	// regeneration is being stored: the two never race in the database.
	outbox  []string
	posting bool
	// framePending is set while a frameMsg is on its way; lastFrame is when the streaming
	// reply was last rendered, by the clock.
	framePending bool
	lastFrame    time.Time
	// tier2 is the Tier 2 retry: armed after a run fails with a retryable classification.
	tier2 tier2

	// now is the clock's time at the last run event or spinner tick, for countdowns.
	now time.Time
	// spent is what the session has spent, as last read from the database, for the header.
	spent agent.Spent

	notice       string
	noticeErr    bool
	quitAfterRun bool
}

// New returns the screen for o.Session. Its stored messages are read by Init's command, so
// the first frame does not wait for the database.
func New(o Options) Model {
	if o.Clock == nil {
		o.Clock = chat.SystemClock{}
	}
	styles := newTheme(true)
	m := Model{
		db:      o.DB,
		client:  o.Client,
		demo:    o.Demo,
		budget:  o.Budget,
		clock:   o.Clock,
		session: o.Session,
		dark:    true,
		styles:  &styles,
		keys:    DefaultKeyMap(),
		help:    help.New(),
		spinner: spinner.New(spinner.WithSpinner(spinner.MiniDot)),
	}
	m.transcript = newTranscript(m.styles)
	m.input = newInput(m.keys)
	m.applyStyles()
	m.updateKeys()
	return m
}

// newInput returns the message box: the model handles enter (send), the box inserts a
// newline on the keys of k.Input.Newline, and pgup/pgdown belong to the transcript.
func newInput(k KeyMap) inputBox {
	in := newInputBox(defaultInputKeys(k.Input.Newline))
	in.Placeholder = fmt.Sprintf("Ask anything — %s sends, %s lists keys", k.Input.Send.Help().Key, k.Chat.Help.Help().Key)
	in.Prompt = "┃ "
	in.Focus()
	return in
}

// Init reads the session's messages and asks the terminal for its background color.
func (m Model) Init() tea.Cmd {
	return tea.Batch(m.loadSession(m.session.ID), tea.RequestBackgroundColor)
}

// applyStyles hands the current styles to the components.
func (m *Model) applyStyles() {
	m.help.Styles = m.styles.Help
	m.input.SetStyles(m.styles.Input)
	m.spinner.Style = m.styles.Muted
}
