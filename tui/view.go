package tui

import (
	"fmt"
	"math"
	"strings"

	"parley/agent"
	"parley/tui/sanitize"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// View draws the screen: header, transcript (or the session picker), status line, input and
// key help. It costs O(lines on screen).
func (m Model) View() tea.View {
	var v tea.View
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "parley"
	if m.width == 0 || m.height == 0 {
		return v // no size yet
	}
	lines := make([]string, 0, m.height)
	lines = append(lines, m.headerView())
	switch m.focus {
	case focusPicker:
		lines = append(lines, m.pickerView(m.transcript.height)...)
	case focusModels:
		lines = append(lines, m.modelsView(m.transcript.height)...)
	case focusVersions:
		lines = append(lines, m.versionsView()...)
	default:
		lines = append(lines, m.transcript.View()...)
	}
	lines = append(lines, m.statusView())
	if next := m.nextView(); next != "" {
		lines = append(lines, next)
	}
	inputTop := len(lines)
	lines = append(lines, m.input.View(), m.helpView())
	v.SetContent(strings.Join(lines, "\n"))
	if m.focus == focusInput {
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
	m.help.SetWidth(m.width)
	helpLines := lipgloss.Height(m.helpView())
	rest := m.height - 1 /* header */ - 1 /* status */ - m.nextHeight() - m.input.Height() - helpLines
	m.transcript.SetSize(m.width, max(rest, 1))
	if m.versions.view != nil {
		m.versions.view.SetSize(m.width, max(rest-1, 1)) // below the version view's title
	}
}

// helpView is the one-line help of the keys that apply now, or with ? the full list and the
// slash commands.
func (m *Model) helpView() string {
	if !m.help.ShowAll {
		return m.shortHelp()
	}
	return m.help.View(fullKeys()) + "\n" + m.styles.Muted.Render(ansi.Wrap("commands: "+slashHelp, m.width, ""))
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
		where = ep.Model
		if ep.Name != "" && !ep.Demo {
			where = ep.Name + " · " + ep.Model
		}
	}
	if role := m.systemLabel(); role != "" {
		where += " · " + role
	}
	badge := ""
	if demo {
		badge = st.HeaderDemo.Render(" demo ")
	}
	state := " " + m.headerState() + " "
	spent := ""
	if m.budget != nil && m.spent.Tokens > 0 {
		spent = spentLabel(m.spent) + " "
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

// headerState names what the active run (or Tier 2) is doing, and how many messages wait.
func (m *Model) headerState() string {
	var s string
	switch r := m.active; {
	case r == nil && m.tier2.Armed():
		s = "retry armed"
	case r == nil:
		s = "idle"
	case r.cancelling:
		s = "cancelling"
	case r.reconnecting != "":
		s = "reconnecting"
	case !r.gotDelta:
		s = "waiting"
	default:
		s = "streaming"
	}
	if n := len(m.queue) + len(m.outbox); n > 0 {
		s += fmt.Sprintf(" · %d queued", n)
	}
	return s
}

// statusView is the line above the input: the Tier 2 banner, a notice, or what the active
// run is doing, and whether the transcript is scrolled away from the end.
func (m *Model) statusView() string {
	st := m.styles
	cancels := m.keys.Chat.Cancel.Help().Key + " cancels"
	var left string
	switch r := m.active; {
	case m.tier2.Armed():
		banner := m.tier2.Banner(m.now)
		if m.fallbackOffered() {
			k := m.keys.Chat.Fallback
			if m.focus == focusTranscript {
				k = m.keys.Transcript.Fallback
			}
			banner += " · " + k.Help().Key + " send to " + sanitize.String(m.fallback.Endpoint().Model) + " now"
		}
		left = st.Warn.Bold(true).Render(banner)
	case m.notice != "":
		style := st.Notice
		if m.noticeErr {
			style = st.Error
		}
		left = style.Render(m.notice)
	case r == nil:
	case r.cancelling:
		left = st.Muted.Render("cancelling…")
	case r.reconnecting != "":
		text := r.reconnecting
		if wait := r.reconnectAt.Sub(m.now); wait > 0 {
			text += fmt.Sprintf(" in %ds", int(math.Ceil(wait.Seconds())))
		}
		left = m.spinner.View() + " " + st.Warn.Render(text)
	case !r.gotDelta:
		wait := "waiting for the reply · "
		if !r.sentAt.IsZero() {
			wait += agent.FormatElapsed(m.now.Sub(r.sentAt)) + " · "
		}
		left = m.spinner.View() + " " + st.Muted.Render(wait+cancels)
	default:
		left = st.Muted.Render("streaming · " + cancels)
	}
	right := ""
	if !m.transcript.Following() {
		right = st.Muted.Render("scrolled up · " + m.keys.Chat.Bottom.Help().Key + " follows")
	}
	room := m.width - lipgloss.Width(right) - 1
	left = ansi.Truncate(left, max(room, 0), "…")
	gap := max(1, m.width-lipgloss.Width(left)-lipgloss.Width(right))
	return left + strings.Repeat(" ", gap) + right
}

// shortHelp is the one-line help cut at a whole key to fit the width. (help.Model stops
// cutting once a key has overflowed by the width of its ellipsis.)
func (m *Model) shortHelp() string {
	keys := m.keys.ShortHelp()
	for n := len(keys); n > 0; n-- {
		line := m.help.ShortHelpView(keys[:n])
		if w := lipgloss.Width(line); w <= m.width {
			if n < len(keys) && w+2 <= m.width {
				line += " " + m.help.Styles.Ellipsis.Render(m.help.Ellipsis)
			}
			return line
		}
	}
	return ""
}
