package tui

import (
	"fmt"
	"io"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"parley/internal/chat"
	"parley/internal/sanitize"
	"parley/internal/wrap"
	"parley/retry"
	"parley/tui/announce"
	"parley/tui/inputbox"
	"parley/tui/notify"
	"parley/tui/overlay"
	"parley/tui/question"
	"parley/tui/slashmenu"
	"parley/tui/toolask"
	"parley/tui/transcript"
)

// View draws the screen: header, transcript (or the session picker), status line, input and
// key help. It costs O(lines on screen).
func (m Model) View() tea.View {
	var v tea.View
	v.AltScreen = true
	v.MouseMode = m.mouseMode()
	v.WindowTitle = notify.Title(m.session.Title, m.active != nil)
	v.ReportFocus = true // a long reply's end is signalled only when the terminal is not focused
	if m.width == 0 || m.height == 0 {
		return v // no size yet
	}
	lines := make([]string, 0, m.height)
	c := m.chrome()
	lines = append(lines, c.header())
	switch {
	case m.overlays.listShown() != nil:
		lines = append(lines, m.overlays.listShown().View(m.width, m.transcript.Height())...)
	default:
		lines = append(lines, m.transcript.View()...)
	}
	lines = append(lines, c.status()...)
	if next := m.next.nextView(m.styles, m.keys.Chat.Cancel.Help().Key, m.width); next != "" {
		lines = append(lines, next)
	}
	lines = append(lines, m.budget.leaveOutView(m.styles.Warn, m.width)...)
	lines = append(lines, m.overlays.menuView(m.width)...)
	inputTop := len(lines)
	lines = append(lines, c.inputLines()...)
	lines = append(lines, c.helpLines()...)
	v.SetContent(strings.Join(lines, "\n"))
	if m.focus == focusInput && m.overlays.blocking() == nil {
		if c := m.input.Cursor(); c != nil {
			c.Y += inputTop
			v.Cursor = c
		}
	}
	return v
}

// layout sizes the transcript to what the header, status line, input and help leave.
func (m *Model) layout() {
	if m.width == 0 {
		return
	}
	m.input.SetWidth(m.width)
	m.input.Placeholder = placeholder(m.keys, m.width)
	m.help.SetWidth(m.width)
	c := m.chrome()
	rest := m.height - 1 /* header */ - len(c.status()) - m.next.nextHeight() - len(m.budget.leaveOutView(m.styles.Warn, m.width)) - len(m.overlays.menuView(m.width)) - c.inputHeight() - len(c.helpLines())
	m.transcript.SetSize(m.width, max(rest, 1))
	m.overlays.Each(overlay.Size{Width: m.width, Height: m.transcript.Height()})
}

// menuView is the slash menu above the input, width cells wide, while it shows.
func (s *stack) menuView(width int) []string {
	if menu := s.Find(slashmenu.ID); menu != nil {
		return menu.View(width, 0)
	}
	return nil
}

// chrome is what the lines around the transcript show: the header, the status line, the
// input (or the tool question in its place) and the key help. Model.chrome gathers it in one
// place; drawing it reads nothing else.
type chrome struct {
	width  int
	styles *theme
	help   help.Model

	// The header: the session's title (and fork), where replies come from, the badges, the
	// run state and the gauges told.
	title, where string
	// fork is where the session was forked from, "" for one that is no fork.
	fork          string
	demo, toolsOn bool
	keyUnset      string // the environment variable of the endpoint's key, when it is not set
	state         string
	told          []string

	// The status line, first of them that is set: the question before a key throws work
	// away, the armed retry's banner, the notice, the active run.
	question  []string
	banner    string
	notice    string
	noticeErr bool
	run       *activeRun
	now       time.Time
	spin      string // the spinner's frame
	cancelKey string
	scrolled  string // said at the right while the transcript is scrolled away from the end

	// The input, or in its place the question before a tool call; the keys that act now, or
	// the SELECT bar while replies are selected.
	input        *inputbox.Box
	toolQuestion []string
	keys         []key.Binding
	selectBar    string
}

// chrome gathers what the header, the status line, the input and the help show now.
func (m *Model) chrome() chrome {
	c := chrome{width: m.width, styles: m.styles, help: m.help, input: &m.input, now: m.now,
		notice: m.notice, noticeErr: m.noticeErr, run: m.active, spin: m.spinner.View(),
		cancelKey: m.keys.Chat.Cancel.Help().Key, keys: m.keys.ShortHelp()}
	c.title = sanitize.String(m.session.Title)
	if c.title == "" {
		c.title = "new session"
	}
	c.fork = m.forkLabel(m.clock.Now())
	if client := m.client; client != nil {
		if m.active != nil && m.active.client != nil {
			client = m.active.client // a fallback's reply shows whose it is
		}
		ep := client.Endpoint()
		c.demo = ep.Demo
		c.where = transcript.ModelName(ep.Model)
		if c.where == "" {
			c.where = "no model chosen"
		}
		if ep.Name != "" && !ep.Demo {
			c.where = ep.Name + " · " + c.where
		}
		if m.client.Endpoint().KeyErr != "" {
			c.keyUnset = m.client.Endpoint().KeyEnv
		}
	}
	if role := m.next.systemLabel(); role != "" {
		c.where += " · " + role
	}
	c.toolsOn = m.tools != nil && m.tools.Any()
	c.state = m.headerState(m.tier2.Armed())
	c.told = m.told(m.clock.Now(), m.spend != nil)

	if q, ok := m.overlays.Front().(*question.Question); ok && !m.tier2.Armed() {
		c.question = q.View(m.width, 0)
	}
	if m.tier2.Armed() {
		c.banner = tier2Banner(&m.tier2, m.now, m.keys.Chat)
		if m.fallbackOffered(&m.tier2) {
			k := m.keys.Chat.Fallback
			if m.focus == focusTranscript {
				k = m.keys.Transcript.Fallback
			}
			c.banner += " · " + k.Help().Key + " send to " + sanitize.String(m.fallback.Endpoint().Model) + " now"
		}
	}
	if !m.transcript.Following() {
		c.scrolled = "scrolled up · " + m.keys.Chat.Bottom.Help().Key + " follows"
	}

	if q, ok := m.overlays.Front().(*toolask.Question); ok {
		c.toolQuestion = q.View(m.width, 0)
	}
	if o := m.overlays.Top(func(o overlay.Overlay) bool { return o.Help() != nil }); o != nil {
		c.keys = o.Help() // the front overlay's that names its keys
	}
	if m.focus == focusTranscript && m.overlays.blocking() == nil {
		c.selectBar = m.keys.selectBar()
	}
	return c
}

// inputLines is the input, or in its place the question before a tool call: the input then
// visibly takes no text, and keeps the draft as it was.
func (c *chrome) inputLines() []string {
	if c.toolQuestion != nil {
		return c.toolQuestion
	}
	return []string{c.input.View()}
}

// inputHeight is how many lines inputLines takes.
func (c *chrome) inputHeight() int {
	if c.toolQuestion != nil {
		return len(c.toolQuestion)
	}
	return c.input.Height()
}

// helpLines is the help of the keys that act now, or the SELECT bar; wrapped to the width,
// never cut.
func (c *chrome) helpLines() []string {
	if c.selectBar == "" {
		return shortHelp(c.help, c.keys, c.width)
	}
	lines := wrap.Lines(c.selectBar, c.width)
	for i, l := range lines {
		lines[i] = c.styles.SelectBar.Render(l + strings.Repeat(" ", max(0, c.width-lipgloss.Width(l))))
	}
	return lines
}

// header is the title bar: the session, the endpoint and model, whether it is the demo, and
// the run state.
func (c *chrome) header() string {
	st := c.styles
	badge := ""
	if c.demo {
		badge = st.HeaderDemo.Render(" demo ")
	}
	if c.toolsOn {
		badge += st.HeaderState.Render(" tools on ")
	}
	if c.keyUnset != "" {
		// Nothing can be sent: said from the start, not after the first message fails.
		badge += st.HeaderDemo.Render(" " + c.keyUnset + " not set ")
	}
	state := " " + c.state + " "
	tail := " · " + c.where + " "
	if c.fork != "" {
		tail = " · " + c.fork + tail // where the session came from is kept with its endpoint
	}
	whole := " parley · " + c.title + tail
	// The gauges go only when fewer than 24 columns would be left beside them; what does not
	// fit is cut from the session's title first, keeping the fork's origin, the endpoint and
	// the model.
	fixed := lipgloss.Width(badge) + lipgloss.Width(state)
	spent := ""
	if len(c.told) > 0 {
		spent = strings.Join(c.told, " · ") + " "
		if c.width-fixed-lipgloss.Width(spent) < 24 {
			spent = ""
		}
	}
	room := c.width - fixed - lipgloss.Width(spent)
	left := whole
	if lipgloss.Width(left) > room {
		left = " parley · " + ansi.Truncate(c.title, max(room-lipgloss.Width(" parley · "+tail), 0), "…") + tail
		left = ansi.Truncate(left, max(room, 0), "… ")
	}
	gap := max(0, room-lipgloss.Width(left))
	return st.Header.Render(left) + badge + st.Header.Render(strings.Repeat(" ", gap)+spent) + st.HeaderState.Render(state)
}

// headerState names what the active run (or Tier 2, armed) is doing, and how many messages
// wait.
func (r *runs) headerState(armed bool) string {
	var s string
	switch r := r.active; {
	case r == nil && armed:
		s = "retry armed"
	case r == nil:
		s = "idle"
	case r.cancelling:
		s = "cancelling"
	case r.reconnecting != nil:
		s = "reconnecting"
	case !r.gotOutput:
		s = "waiting"
	default:
		s = "streaming"
	}
	if n := len(r.queue) + len(r.outbox); n > 0 {
		s += fmt.Sprintf(" · %d queued", n)
	}
	return s
}

// status is the line above the input, wrapped when it is longer than the width: the question
// standing in front, the Tier 2 banner, a notice, or what the active run is doing, and whether
// the transcript is scrolled away from the end.
func (c *chrome) status() []string {
	if c.question != nil {
		return padded(c.question, c.width)
	}
	st := c.styles
	cancels := c.cancelKey + " cancels"
	var text, spin string
	style := st.Muted
	switch r := c.run; {
	case c.banner != "":
		text, style = c.banner, st.Warn.Bold(true)
	case c.notice != "":
		text, style = c.notice, st.Notice
		if c.noticeErr {
			style = st.Error
		}
	case r == nil:
	case r.cancelling:
		text = "cancelling…"
	case r.reconnecting != nil:
		text, style, spin = sanitize.String(retry.Reconnecting(*r.reconnecting, r.reconnectAt, c.now)), st.Warn, c.spin+" "
	case !r.gotOutput:
		wait := "waiting for the reply · "
		if !r.sentAt.IsZero() {
			wait += chat.FormatElapsed(c.now.Sub(r.sentAt)) + " · "
		}
		text, spin = wait+cancels, c.spin+" "
	case c.now.Sub(r.lastText) >= chat.SilenceShown:
		text, spin = "no text for "+chat.FormatElapsed(c.now.Sub(r.lastText))+" · "+cancels, c.spin+" "
	default:
		text = "streaming · " + cancels
	}
	right := ""
	if c.scrolled != "" {
		right = st.Muted.Render(c.scrolled)
	}
	var lines []string
	if text != "" {
		room := c.width - lipgloss.Width(spin)
		for i, l := range wrap.Lines(text, max(room, 1)) {
			if i == 0 {
				lines = append(lines, spin+style.Render(l))
			} else {
				lines = append(lines, strings.Repeat(" ", lipgloss.Width(spin))+style.Render(l))
			}
		}
	}
	if right != "" {
		n := len(lines)
		if n > 0 && lipgloss.Width(lines[n-1])+1+lipgloss.Width(right) <= c.width {
			lines[n-1] += strings.Repeat(" ", c.width-lipgloss.Width(lines[n-1])-lipgloss.Width(right)) + right
		} else {
			lines = append(lines, strings.Repeat(" ", max(0, c.width-lipgloss.Width(right)))+right)
		}
	}
	if len(lines) == 0 {
		lines = []string{""}
	}
	return padded(lines, c.width)
}

// padded fills each of lines with spaces to width.
func padded(lines []string, width int) []string {
	for i, l := range lines {
		lines[i] = l + strings.Repeat(" ", max(0, width-lipgloss.Width(l)))
	}
	return lines
}

// shortHelp is the help of the enabled keys, drawn with h's styles, wrapped at whole keys to
// fit width.
func shortHelp(h help.Model, keys []key.Binding, width int) []string {
	sep := h.Styles.ShortSeparator.Render(h.ShortSeparator)
	var lines []string
	line := ""
	for _, b := range keys {
		if !b.Enabled() {
			continue
		}
		item := h.Styles.ShortKey.Render(b.Help().Key) + " " + h.Styles.ShortDesc.Render(b.Help().Desc)
		switch {
		case line == "":
			line = item
		case lipgloss.Width(line)+lipgloss.Width(sep)+lipgloss.Width(item) <= width:
			line += sep + item
		default:
			lines = append(lines, line)
			line = item
		}
	}
	return append(lines, line)
}

// Below is the screen-reader mode (--screen-reader): the same Model, keys and all, run
// without a renderer, and after every message it handles its state said as lines by
// tui/announce. Reader's Update is the one gate every change passes.

// Reader is the chat screen for a screen reader: Model's behaviour, written as an append-only
// stream of lines instead of a redrawn screen. It is run with tea.WithoutRenderer.
type Reader struct {
	m   Model
	say *announce.Writer
}

// NewReader returns the screen for o.Session in screen-reader mode, writing its lines to out.
// A long reply's end is signalled with a bell rather than OSC 9: the mode writes no escape
// sequences, and its "reply finished" line says the rest.
func NewReader(o Options, out io.Writer) Reader {
	if o.Notify == notify.OSC9 {
		o.Notify = notify.Bell
	}
	m := New(o)
	m.screenReader = true
	return Reader{m: m, say: announce.New(out)}
}

// Init is Model's.
func (r Reader) Init() tea.Cmd { return r.m.Init() }

// Update hands msg to Model, and says what it changed.
func (r Reader) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	next, cmd := r.m.Update(msg)
	r.m = next.(Model)
	r.say.Say(r.m.spoken(typed(msg, r.m.input.KeyMap, r.m.keys.Input.Send)))
	return r, cmd
}

// View draws nothing: the lines are written as the state changes.
func (r Reader) View() tea.View { return tea.View{} }

// typed reports whether msg is a key typed into the input, erasing in it (its keys k) or
// sending it (send), which a screen reader speaks as it is pressed: the input's new text is
// then not said again.
func typed(msg tea.Msg, k inputbox.Keys, send key.Binding) bool {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return msg.Text != "" || key.Matches(msg, k.DeleteCharacterBackward, k.DeleteCharacterForward, k.DeleteWordBackward,
			k.DeleteWordForward, k.DeleteBeforeCursor, k.DeleteAfterCursor, k.InsertNewline, send)
	case pasteTickMsg:
		return true // the end of a paste that arrived as keys
	}
	return false
}

// spoken is what the screen says now, for announce; typed says the message just handled was a
// key typed into the input.
func (m *Model) spoken(typed bool) announce.State {
	now := m.clock.Now()
	s := announce.State{Now: now, Session: m.session.ID, Title: sanitize.String(m.session.Title),
		Notice: m.notice, NoticeGen: m.noticeEnd.gen, NoticeErr: m.noticeErr,
		Input: m.input.Value(), Typed: typed, Intro: m.transcript.Intro()}
	selected := m.transcript.Selected()
	for _, sp := range m.transcript.Spoken() {
		msg := sp.Message
		if msg.Role != chat.RoleUser && msg.Role != chat.RoleAssistant {
			continue
		}
		if msg.ID == selected && m.focus == focusTranscript {
			who := "parley: "
			if msg.Role == chat.RoleUser {
				who = "you: "
			}
			first, _, _ := strings.Cut(strings.TrimSpace(sp.Text), "\n")
			s.Selected = who + first
		}
		s.Messages = append(s.Messages, announce.Message{ID: msg.ID, Operator: msg.Role == chat.RoleUser,
			Text: sp.Text, Streaming: sp.Streaming, Status: msg.Status, Outcome: sp.Outcome, Note: sp.Note, Tools: sp.Tools})
	}
	c := m.keys.Chat
	if m.tier2.Armed() {
		keys := c.Cancel.Help().Key + " cancels"
		switch k := c.RetryNow.Help().Key; {
		case m.tier2.Unsent():
			keys += ", " + k + " sends now"
		case !m.tier2.Scheduled():
			keys += ", " + k + " retries now"
		}
		if m.fallbackOffered(&m.tier2) {
			keys += ", " + c.Fallback.Help().Key + " sends it to " + m.fallback.Endpoint().Model
		}
		s.Tier2 = announce.Wait{Words: sanitize.String(m.tier2.Awaited()), Due: m.tier2.Due(), Keys: keys}
	}
	if m.tier2.State() == retry.Tier2Dispatching {
		s.Sending = "retrying now"
		if m.tier2.Unsent() {
			s.Sending = "sending now"
		}
	}
	if r := m.active; r != nil && r.reconnecting != nil && !r.reconnectAt.IsZero() {
		s.Reconnect = announce.Wait{Words: sanitize.String(retry.Reconnecting(*r.reconnecting, r.reconnectAt, r.reconnectAt)),
			Due: r.reconnectAt, Keys: c.Cancel.Help().Key + " cancels"}
	}
	if r := m.active; r != nil && !r.cancelling {
		cancels := c.Cancel.Help().Key + " cancels"
		switch {
		case !r.gotOutput && !r.sentAt.IsZero() && m.now.Sub(r.sentAt) >= chat.SilenceShown:
			s.Silence = "no reply yet after " + chat.FormatElapsed(chat.SilenceShown) + " · " + cancels
		case r.gotOutput && m.now.Sub(r.lastText) >= chat.SilenceShown:
			s.Silence = "no text for " + chat.FormatElapsed(chat.SilenceShown) + " · " + cancels
		}
	}
	switch o := m.overlays.Front().(type) {
	case nil:
	case *toolask.Question:
		s.Question, s.Chosen = o.Spoken(), o.Chosen()
	case *question.Question:
		s.Question = sanitize.String(o.Text())
	default:
		if o.ID() != slashmenu.ID {
			s.List, s.ListKeys = o.ID(), c.Cancel.Help().Key+" closes"
			for _, l := range o.View(m.width, m.transcript.Height()) {
				if l = strings.TrimSpace(ansi.Strip(l)); l != "" {
					s.ListLines = append(s.ListLines, l)
				}
			}
		}
	}
	return s
}
