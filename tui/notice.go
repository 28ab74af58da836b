package tui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"parley/internal/chat"
)

// This file owns the notice on the status line: its text and whether it is an error, and how
// long it stays besides until the next one: a notice of something done (a copy) is news for
// noticeLife, and one of a tool call running ends with its result.

// noticeLife is how long a notice of something done stays on the status line.
const noticeLife = 4 * time.Second

// noticeLine is the notice shown on the status line. Model embeds it.
type noticeLine struct {
	notice    string
	noticeErr bool
	noticeEnd noticeEnd
}

// noticeEnd is what ends the notice shown, besides the next one. gen counts notices: the end
// of one shown before ends nothing. call is the tool call a notice says is running.
type noticeEnd struct {
	gen  int
	call string
}

// noticeExpiredMsg ends notice gen, when it is still the one shown.
type noticeExpiredMsg struct{ gen int }

// setNotice shows a line in the status line until the next message is sent, or another
// notice.
func (n *noticeLine) setNotice(text string, isErr bool) {
	n.notice, n.noticeErr = text, isErr
	n.noticeEnd = noticeEnd{gen: n.noticeEnd.gen + 1}
}

// flash shows a notice for noticeLife, by clock.
func (n *noticeLine) flash(clock chat.Clock, text string, isErr bool) tea.Cmd {
	n.setNotice(text, isErr)
	gen := n.noticeEnd.gen
	return func() tea.Msg {
		<-clock.After(noticeLife)
		return noticeExpiredMsg{gen: gen}
	}
}

// noticeWhileRunning shows a notice of tool call id running, which its result ends.
func (n *noticeLine) noticeWhileRunning(text, id string) {
	n.setNotice(text, false)
	n.noticeEnd.call = id
}

// toolEnded takes away the notice of tool call id running: it has run ("" ends any call's).
func (n *noticeLine) toolEnded(id string) {
	if c := n.noticeEnd.call; c != "" && (id == "" || c == id) {
		n.setNotice("", false)
	}
}

// handleNoticeExpired takes away a flashed notice that is still shown.
func (n *noticeLine) handleNoticeExpired(msg noticeExpiredMsg) {
	if msg.gen == n.noticeEnd.gen {
		n.setNotice("", false)
	}
}

// clearIfPrefixed takes away an error notice that begins with prefix: what it said failed has
// since succeeded.
func (n *noticeLine) clearIfPrefixed(prefix string) {
	if n.noticeErr && strings.HasPrefix(n.notice, prefix) {
		n.setNotice("", false)
	}
}
