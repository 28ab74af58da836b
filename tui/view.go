package tui

import (
	"fmt"
	"strings"

	"parley/internal/chat"
	"parley/internal/sanitize"
	"parley/internal/wrap"
	"parley/retry"
	"parley/tui/notify"
	"parley/tui/overlay"
	"parley/tui/question"
	"parley/tui/slashmenu"
	"parley/tui/toolask"
	"parley/tui/transcript"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
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
	lines = append(lines, m.headerView())
	switch {
	case m.overlays.listShown() != nil:
		lines = append(lines, m.overlays.listShown().View(m.width, m.transcript.Height())...)
	default:
		lines = append(lines, m.transcript.View()...)
	}
	lines = append(lines, m.statusView()...)
	if next := m.next.nextView(m.styles, m.keys.Chat.Cancel.Help().Key, m.width); next != "" {
		lines = append(lines, next)
	}
	lines = append(lines, m.budget.leaveOutView(m.styles.Warn, m.width)...)
	lines = append(lines, m.overlays.menuView(m.width)...)
	inputTop := len(lines)
	lines = append(lines, m.inputView()...)
	lines = append(lines, m.helpView()...)
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
	rest := m.height - 1 /* header */ - len(m.statusView()) - m.next.nextHeight() - len(m.budget.leaveOutView(m.styles.Warn, m.width)) - len(m.overlays.menuView(m.width)) - m.inputHeight() - len(m.helpView())
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

// inputView is the input, or in its place the overlay in front (the question before a tool
// call): the input then visibly takes no text, and keeps the draft as it was.
func (m *Model) inputView() []string {
	if q, ok := m.overlays.Front().(*toolask.Question); ok {
		return q.View(m.width, 0)
	}
	return []string{m.input.View()}
}

// inputHeight is how many lines inputView takes.
func (m *Model) inputHeight() int {
	if q, ok := m.overlays.Front().(*toolask.Question); ok {
		return len(q.View(m.width, 0))
	}
	return m.input.Height()
}

// helpView is the help of the keys that apply now (the SELECT bar while replies are selected,
// the overlay's keys while every key is listed); wrapped to the width, never cut.
func (m *Model) helpView() []string {
	switch {
	case m.overlays.blocking() != nil:
		return shortHelp(m.help, m.shortKeys(), m.width) // the overlay's own keys
	case m.focus == focusTranscript:
		lines := wrap.Lines(m.keys.selectBar(), m.width)
		for i, l := range lines {
			lines[i] = m.styles.SelectBar.Render(l + strings.Repeat(" ", max(0, m.width-lipgloss.Width(l))))
		}
		return lines
	}
	return shortHelp(m.help, m.shortKeys(), m.width)
}

// headerView is the title bar: the session, the endpoint and model, whether it is the demo,
// and the run state.
func (m *Model) headerView() string {
	st := m.styles
	title := sanitize.String(m.session.Title)
	if title == "" {
		title = "new session"
	}
	where := ""
	demo := false
	if client := m.client; client != nil {
		if m.active != nil && m.active.client != nil {
			client = m.active.client // a fallback's reply shows whose it is
		}
		ep := client.Endpoint()
		demo = ep.Demo
		where = transcript.ModelName(ep.Model)
		if ep.Name != "" && !ep.Demo {
			where = ep.Name + " · " + where
		}
	}
	if role := m.next.systemLabel(); role != "" {
		where += " · " + role
	}
	if fork := m.forkLabel(m.clock.Now()); fork != "" {
		title += " · " + fork
	}
	badge := ""
	if demo {
		badge = st.HeaderDemo.Render(" demo ")
	}
	if m.tools != nil && m.tools.Any() {
		badge += st.HeaderState.Render(" tools on ")
	}
	if m.client != nil && m.client.Endpoint().KeyErr != "" {
		// Nothing can be sent: said from the start, not after the first message fails.
		badge += st.HeaderDemo.Render(" " + m.client.Endpoint().KeyEnv + " not set ")
	}
	state := " " + m.headerState(m.tier2.Armed()) + " "
	told := m.told(m.clock.Now(), m.spend != nil)
	spent := ""
	if len(told) > 0 {
		spent = strings.Join(told, " · ") + " "
		// On a narrow screen the session's name comes first.
		if m.width-lipgloss.Width(badge)-lipgloss.Width(state)-lipgloss.Width(spent) < 24 {
			spent = ""
		}
	}
	room := m.width - lipgloss.Width(badge) - lipgloss.Width(state) - lipgloss.Width(spent)
	left := ansi.Truncate(" parley · "+title+" · "+where+" ", max(room, 0), "… ")
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

// silenceShown is how long a reply may send no text before the status line counts it.
const silenceShown = chat.SilenceShown

// statusView is the line above the input, wrapped when it is longer than the width: the Tier 2
// banner, the question standing in front, a notice, or what the active run is doing, and whether the transcript is scrolled
// away from the end.
func (m *Model) statusView() []string {
	if q, ok := m.overlays.Front().(*question.Question); ok && !m.tier2.Armed() {
		return padded(q.View(m.width, 0), m.width)
	}
	st := m.styles
	cancels := m.keys.Chat.Cancel.Help().Key + " cancels"
	var text, spin string
	style := st.Muted
	switch r := m.active; {
	case m.tier2.Armed():
		banner := tier2Banner(&m.tier2, m.now, m.keys.Chat)
		if m.fallbackOffered(&m.tier2) {
			k := m.keys.Chat.Fallback
			if m.focus == focusTranscript {
				k = m.keys.Transcript.Fallback
			}
			banner += " · " + k.Help().Key + " send to " + sanitize.String(m.fallback.Endpoint().Model) + " now"
		}
		text, style = banner, st.Warn.Bold(true)
	case m.notice != "":
		text, style = m.notice, st.Notice
		if m.noticeErr {
			style = st.Error
		}
	case r == nil:
	case r.cancelling:
		text = "cancelling…"
	case r.reconnecting != nil:
		text, style, spin = sanitize.String(retry.Reconnecting(*r.reconnecting, r.reconnectAt, m.now)), st.Warn, m.spinner.View()+" "
	case !r.gotOutput:
		wait := "waiting for the reply · "
		if !r.sentAt.IsZero() {
			wait += chat.FormatElapsed(m.now.Sub(r.sentAt)) + " · "
		}
		text, spin = wait+cancels, m.spinner.View()+" "
	case m.now.Sub(r.lastText) >= silenceShown:
		text, spin = "no text for "+chat.FormatElapsed(m.now.Sub(r.lastText))+" · "+cancels, m.spinner.View()+" "
	default:
		text = "streaming · " + cancels
	}
	right := ""
	if !m.transcript.Following() {
		right = st.Muted.Render("scrolled up · " + m.keys.Chat.Bottom.Help().Key + " follows")
	}
	var lines []string
	if text != "" {
		room := m.width - lipgloss.Width(spin)
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
		if n > 0 && lipgloss.Width(lines[n-1])+1+lipgloss.Width(right) <= m.width {
			lines[n-1] += strings.Repeat(" ", m.width-lipgloss.Width(lines[n-1])-lipgloss.Width(right)) + right
		} else {
			lines = append(lines, strings.Repeat(" ", max(0, m.width-lipgloss.Width(right)))+right)
		}
	}
	if len(lines) == 0 {
		lines = []string{""}
	}
	return padded(lines, m.width)
}

// padded fills each of lines with spaces to width.
func padded(lines []string, width int) []string {
	for i, l := range lines {
		lines[i] = l + strings.Repeat(" ", max(0, width-lipgloss.Width(l)))
	}
	return lines
}

// shortKeys are the keys that act now: the front overlay's that names its keys, else the
// screen's.
func (m *Model) shortKeys() []key.Binding {
	if o := m.overlays.Top(func(o overlay.Overlay) bool { return o.Help() != nil }); o != nil {
		return o.Help()
	}
	return m.keys.ShortHelp()
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
