package tui

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textarea"
	"charm.land/lipgloss/v2"

	"parley/tui/filterlist"
	palette "parley/tui/theme"
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

// newTheme builds the styles for a dark or a light background from that background's palette
// (tui/theme), which the contrast tests hold to WCAG's ratios.
func newTheme(dark bool) theme {
	p := palette.For(dark)
	fg := func(c color.Color) lipgloss.Style { return lipgloss.NewStyle().Foreground(c) }
	s := theme{
		Header:      fg(p.BarFg).Background(p.BarBg).Bold(true),
		HeaderDemo:  fg(p.BadgeFg).Background(p.BadgeBg).Bold(true),
		HeaderState: fg(p.BarFg).Background(p.BarBg),
		UserLabel:   fg(p.User).Bold(true),
		ReplyLabel:  fg(p.Accent).Bold(true),
		UserText:    lipgloss.NewStyle(),
		Muted:       fg(p.Muted),
		Error:       fg(p.Error),
		Warn:        fg(p.Warn),
		Notice:      fg(p.Muted),
		Selected:    fg(p.Accent),
		PickerItem:  lipgloss.NewStyle().PaddingLeft(2),
		PickerFocus: lipgloss.NewStyle().PaddingLeft(1).Foreground(p.Accent).Bold(true),
		SelectBar:   fg(p.OnAccent).Background(p.Accent).Bold(true),
		Help: help.Styles{
			ShortKey: fg(p.Key), ShortDesc: fg(p.KeyDesc), ShortSeparator: fg(p.KeySep), Ellipsis: fg(p.KeySep),
			FullKey: fg(p.Key), FullDesc: fg(p.KeyDesc), FullSeparator: fg(p.KeySep),
		},
		Input: textarea.DefaultStyles(dark),
	}
	for _, st := range []*textarea.StyleState{&s.Input.Focused, &s.Input.Blurred} {
		st.Prompt = fg(p.User)
		st.Placeholder = fg(p.Muted)
		st.Selection = fg(p.Text).Background(p.SelectionBg)
		st.LineNumber, st.CursorLineNumber = fg(p.Muted), fg(p.Muted)
	}
	s.Input.Blurred.Text, s.Input.Blurred.CursorLine = fg(p.Muted), fg(p.Muted)
	s.Input.Cursor.Color = p.Text
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
