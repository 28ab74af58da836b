package tui

import (
	"io"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"parley/internal/chat"
	"parley/internal/sanitize"
	"parley/retry"
	"parley/tui/announce"
	"parley/tui/inputbox"
	"parley/tui/notify"
	"parley/tui/question"
	"parley/tui/slashmenu"
	"parley/tui/toolask"
)

// This file is the screen-reader mode (--screen-reader): the same Model, keys and all, run
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
