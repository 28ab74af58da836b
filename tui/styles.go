package tui

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textarea"
	"charm.land/lipgloss/v2"

	"parley/tui/filterlist"
	"parley/tui/toolask"
	"parley/tui/transcript"
	"parley/tui/versions"
)

// theme holds every style of the screen for one terminal background.
type theme struct {
	Header      lipgloss.Style // the title bar
	HeaderDemo  lipgloss.Style // the "demo" badge
	HeaderState lipgloss.Style // the run state at the right of the title bar
	UserLabel   lipgloss.Style // "You" above an operator message
	ReplyLabel  lipgloss.Style // "Assistant" above a reply
	UserText    lipgloss.Style // an operator message's text
	Muted       lipgloss.Style // model names, hints, queued and cancelled notes
	Error       lipgloss.Style // a failed reply's label and message
	Warn        lipgloss.Style // an interrupted reply
	Notice      lipgloss.Style // the status line
	Selected    lipgloss.Style // the gutter mark of the selected reply
	PickerItem  lipgloss.Style // a session in the picker
	PickerFocus lipgloss.Style // the highlighted session in the picker
	SelectBar   lipgloss.Style // the bar that says replies are being selected
	Help        help.Styles
	Input       textarea.Styles
}

// newTheme builds the styles for a dark or a light background. Every color is a light/dark
// pair so the screen stays readable on both.
func newTheme(dark bool) theme {
	ld := lipgloss.LightDark(dark)
	accent := ld(lipgloss.Color("#5A3FC0"), lipgloss.Color("#A995FF"))
	user := ld(lipgloss.Color("#006B8F"), lipgloss.Color("#5FD7FF"))
	muted := ld(lipgloss.Color("#6C6C6C"), lipgloss.Color("#8A8A8A"))
	red := ld(lipgloss.Color("#B00020"), lipgloss.Color("#FF6B6B"))
	yellow := ld(lipgloss.Color("#8A5A00"), lipgloss.Color("#FFD166"))
	barFg := ld(lipgloss.Color("#1C1C1C"), lipgloss.Color("#EEEEEE"))
	barBg := ld(lipgloss.Color("#DADAF5"), lipgloss.Color("#35305A"))

	s := theme{
		Header:      lipgloss.NewStyle().Foreground(barFg).Background(barBg).Bold(true),
		HeaderDemo:  lipgloss.NewStyle().Foreground(barBg).Background(yellow).Bold(true),
		HeaderState: lipgloss.NewStyle().Foreground(barFg).Background(barBg),
		UserLabel:   lipgloss.NewStyle().Foreground(user).Bold(true),
		ReplyLabel:  lipgloss.NewStyle().Foreground(accent).Bold(true),
		UserText:    lipgloss.NewStyle(),
		Muted:       lipgloss.NewStyle().Foreground(muted),
		Error:       lipgloss.NewStyle().Foreground(red),
		Warn:        lipgloss.NewStyle().Foreground(yellow),
		Notice:      lipgloss.NewStyle().Foreground(muted),
		Selected:    lipgloss.NewStyle().Foreground(accent),
		PickerItem:  lipgloss.NewStyle().PaddingLeft(2),
		PickerFocus: lipgloss.NewStyle().PaddingLeft(1).Foreground(accent).Bold(true),
		SelectBar:   lipgloss.NewStyle().Foreground(barBg).Background(accent).Bold(true),
		Help:        help.DefaultStyles(dark),
		Input:       textarea.DefaultStyles(dark),
	}
	// No highlighted cursor line: the input is a chat box, not an editor.
	s.Input.Focused.CursorLine = lipgloss.NewStyle()
	return s
}

// transcript returns the styles the transcript draws with.
func (s *theme) transcript() transcript.Styles {
	return transcript.Styles{UserLabel: s.UserLabel, UserText: s.UserText, ReplyLabel: s.ReplyLabel,
		Muted: s.Muted, Error: s.Error, Warn: s.Warn, Selected: s.Selected}
}

// list returns the styles the lists in the transcript's place draw with.
func (s *theme) list() filterlist.Styles {
	return filterlist.Styles{Title: s.ReplyLabel, Muted: s.Muted, Item: s.PickerItem, Focus: s.PickerFocus}
}

// toolask returns the styles the question before a tool call draws with.
func (s *theme) toolask() toolask.Styles {
	return toolask.Styles{Question: s.Warn.Bold(true), Choice: s.Muted, Chosen: s.SelectBar, Hint: s.Muted}
}

// versions returns the styles the version view draws with.
func (s *theme) versions() versions.Styles {
	return versions.Styles{Title: s.ReplyLabel, Muted: s.Muted, Transcript: s.transcript()}
}
