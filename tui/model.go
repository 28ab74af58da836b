// Package tui is parley's chat screen: a Bubble Tea program that streams replies from an
// OpenAI-compatible endpoint into a scrollable transcript, stores every message as it goes,
// and says plainly when a run is waiting, retrying, cancelled or failed.
package tui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"parley/agent"
	"parley/history/stored"
	"parley/internal/attach"
	"parley/internal/chat"
	"parley/internal/toolloop"
	"parley/tui/clipboard"
	"parley/tui/inputbox"
	"parley/tui/notify"
	palette "parley/tui/theme"
	"parley/tui/transcript"
	"parley/tui/versions"
)

// Options is what the screen needs to run.
type Options struct {
	// DB stores sessions, messages and runs.
	DB Store
	// Client sends requests to the endpoint.
	Client *agent.Client
	// Session is the session to open.
	Session stored.Session
	// Demo is the built-in demo endpoint when it is the one in use, for /demo commands; nil
	// otherwise.
	Demo Demo
	// Clock times runs and their storage. Nil means the system clock.
	Clock chat.Clock
	// Spend holds runs to the spend limits, and prices the session's spend for the header.
	// Nil checks and shows nothing.
	Spend *agent.SpendGuard
	// Fallback is the client of the profile's fallback endpoint, offered while a retry is
	// armed; nil offers none.
	Fallback *agent.Client
	// Others are the clients of the other profiles, which R offers to run a reply again on.
	Others []*agent.Client
	// System is the system prompt to start with. SystemExplicit says it was asked for
	// (--role, --system): it then applies to the session opened even when that session has
	// a prompt of its own; otherwise it only starts sessions that have no messages yet.
	System         stored.SystemPrompt
	SystemExplicit bool
	// Roles are the roles /role chooses from, by name.
	Roles map[string]Role
	// AttachLimits are the largest text file and image /file attaches; zero:
	// attach.DefaultLimits.
	AttachLimits attach.Limits
	// ChooseModel, when set, are the endpoint's models, none of them named: the screen opens
	// on the list to choose one. ModelProblem, when set, says why no model could be found:
	// the screen opens saying so. Either way nothing is sent until a model is chosen.
	ChooseModel  []string
	ModelProblem string
	// Send is a message to send as soon as the session is open; Attachments go with the
	// first message sent.
	Send        string
	Attachments []attach.File
	// Mouse captures the mouse from the start (config.toml's mouse = true): the wheel
	// scrolls, and selecting text takes shift. Otherwise the terminal keeps the mouse.
	Mouse bool
	// ReadingWidth caps the width of replies' prose; 0: DefaultReadingWidth.
	ReadingWidth int
	// Clipboard is how y copies; nil: what the environment offers (clipboard.Choose).
	Clipboard *clipboard.Way
	// Tools are the session's tools, nil when no tool server is configured.
	Tools *toolloop.Toolbox
	// Chosen says how the endpoint was chosen when nothing configured it (OPENAI_API_KEY
	// alone): the screen opens saying so.
	Chosen string
	// PasteGap is how close together keys after an enter make it a line end of a paste that
	// arrives as keys (keypaste.go); 0 takes every enter as typed. The program uses
	// DefaultPasteGap.
	PasteGap time.Duration
	// Theme is config.toml's theme or --theme; ColorFGBG is the environment's COLORFGBG,
	// which auto reads until the terminal answers OSC 11 (tui/theme says the order).
	Theme     palette.Choice
	ColorFGBG string
	// Notify is how a long reply's end is signalled while the terminal is not looked at
	// (config.toml's notify; "" is a bell).
	Notify notify.Kind
}

// Demo is the built-in demo endpoint as /demo drives it: Command tells it how to misbehave
// next, and says what it will do or why it cannot (internal/demo's Server is one).
type Demo interface {
	Command(args string) (string, error)
}

// DefaultReadingWidth is the widest replies' prose is set when config.toml says nothing.
const DefaultReadingWidth = 100

// focus is the part of the screen that receives typed keys.
type focus int

const (
	focusInput      focus = iota // the message being written
	focusTranscript              // selecting replies
)

// Model is parley's chat screen, the program's only tea.Model.
type Model struct {
	// endpoints are the clients runs are sent with (waits.go).
	endpoints
	demo  Demo
	clock chat.Clock
	spend *agent.SpendGuard
	// sessionState is the open session, and which switch of sessions it is (session.go).
	sessionState

	width, height int
	dark          bool
	styles        *theme
	keys          KeyMap
	help          help.Model
	input         inputbox.Box
	spinner       spinner.Model
	transcript    *transcript.List
	focus         focus

	// runs is the session's runs: the active one, what waits behind it, its stream on screen
	// (run.go, outbox.go).
	runs

	// waits is the Tier 2 retry and the offer about a failed reply the session opened on
	// (waits.go).
	waits
	// start is what the screen was started with; next is what goes with the next message
	// sent (roles.go, attach.go, edit.go); models is /model's list (overlays.go).
	start startup
	next  nextMessage

	// tools are the session's tools, nil when none are configured (overlays.go).
	tools *toolbox
	// overlays stand in front of the conversation (the question before a tool call, a
	// question before a key throws work away): the one in front takes every key (update.go).
	overlays stack

	// gauges are the header's numbers: the context budget, the rate limits left, the spend
	// (budget.go).
	gauges

	// drafts is what is typed and not sent: the stored draft, the one ctrl+c cleared, the
	// walk through earlier messages (draft.go).
	drafts

	// finding is / in the transcript (chatkeys.go).
	finding finding
	// keyPaste tells a paste that arrives as keys from typing (keypaste.go).
	keyPaste keyPaste
	// copying is how text is copied, and whether the mouse is captured (copy.go).
	copying

	// noticeLine is the notice on the status line (notice.go).
	noticeLine

	// followBg lets the terminal's answer to OSC 11 change dark (theme auto).
	followBg bool
	// turn signals a long reply's end (signalEnd, run.go).
	turn notify.Turn
	// screenReader is set when the screen runs as Reader (reader.go): nothing is drawn, so
	// nothing is asked of the terminal or set in it.
	screenReader bool
}

// New returns the screen for o.Session. Its stored messages are read by Init's command, so
// the first frame does not wait for the database.
func New(o Options) Model {
	if o.Clock == nil {
		o.Clock = chat.SystemClock{}
	}
	dark := palette.Initial(o.Theme, o.ColorFGBG)
	styles := newTheme(dark)
	m := Model{
		runs:         runs{runClients: map[int64]*agent.Client{}, resumed: map[int64]stored.Message{}},
		endpoints:    endpoints{client: o.Client, fallback: o.Fallback, others: o.Others},
		demo:         o.Demo,
		tools:        o.Tools,
		spend:        o.Spend,
		clock:        o.Clock,
		sessionState: sessionState{db: o.DB, session: o.Session, opening: true},
		dark:         dark,
		followBg:     palette.FollowsTerminal(o.Theme),
		turn:         notify.New(o.Notify),
		styles:       &styles,
		keys:         DefaultKeyMap(),
		help:         help.New(),
		spinner:      spinner.New(spinner.WithSpinner(spinner.MiniDot)),
		drafts:       drafts{recall: recall{at: -1}, draft: draftState{rev: -1}},
		copying:      copying{clip: chooseClipboard(o), mouse: o.Mouse},
		keyPaste:     keyPaste{gap: o.PasteGap},
	}
	m.transcript = transcript.New(m.styles.transcript())
	m.transcript.SetDark(dark)
	m.transcript.SetReadingWidth(cmp.Or(o.ReadingWidth, DefaultReadingWidth))
	m.start, m.next = newStartup(o)
	m.input = newInput(m.keys)
	m.applyStyles()
	m.updateKeys()
	m.transcript.SetOptions(m.transcriptOptions())
	m.sayEndpoint(&m.noticeLine, o.Chosen)
	return m
}

// transcriptOptions is what the transcript is told of the screen: the endpoint its first
// screen names, and the keys it and collapsed pastes name.
func (m *Model) transcriptOptions() transcript.Options {
	c := &m.keys.Chat
	o := transcript.Options{Opening: m.opening,
		ExpandKey: c.Pastes.Help().Key, HelpKey: c.Help.Help().Key, QuitKey: c.Interrupt.Help().Key}
	if m.client != nil {
		ep := m.client.Endpoint()
		named := slices.DeleteFunc([]string{ep.Name, transcript.ModelName(ep.Model)}, func(s string) bool { return s == "" })
		o.Demo, o.Endpoint = ep.Demo, strings.Join(named, " · ")
	}
	return o
}

// newInput returns the message box: the model handles enter (send), the box inserts a
// newline on the keys of k.Input.Newline, and pgup/pgdown belong to the transcript.
func newInput(k KeyMap) inputbox.Box {
	in := inputbox.New(inputbox.DefaultKeys(k.Input.Newline))
	in.Placeholder = placeholder(k, 0)
	in.Prompt = "┃ "
	in.Focus()
	return in
}

// placeholder is the input's hint when it is empty, as much of it as fits width (0: all).
func placeholder(k KeyMap, width int) string {
	keys := fmt.Sprintf("%s sends, %s lists keys", k.Input.Send.Help().Key, k.Chat.Help.Help().Key)
	if width > 0 && lipgloss.Width("┃ Ask anything — "+keys) > width {
		return keys
	}
	return "Ask anything — " + keys
}

// Init reads the session's messages, asks the terminal for its background color, and asks it
// to send the wheel as arrow keys while the mouse is not captured (while it is, the wheel
// comes as mouse events and the mode does nothing).
func (m Model) Init() tea.Cmd {
	if m.screenReader {
		return m.loadSession(m.session.ID)
	}
	return tea.Batch(m.loadSession(m.session.ID), tea.RequestBackgroundColor, tea.Raw(altScrollOn))
}

// applyStyles hands the current styles to the components.
func (m *Model) applyStyles() {
	m.help.Styles = m.styles.Help
	m.input.SetStyles(m.styles.Input)
	m.spinner.Style = m.styles.Muted
	m.transcript.SetStyles(m.styles.transcript())
	if v, ok := m.overlays.Find(versions.ID).(*versions.View); ok {
		v.SetStyles(m.styles.versions())
	}
}
