package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"parley/internal/chat"
	"parley/tui/question"
	"parley/tui/transcript"
)

// This file owns the keys that ask before they throw work away: a reply being written (/new,
// opening another session, /quit, ctrl+d), the quit of a ctrl+c that came just after a reply
// ended (meant to stop it), and r and e on an earlier turn, which supersede the turns after it.
// Each asks once; the same key again acts, any other key forgets the question and its notice.

// confirm is an action that asked for its key to be pressed again before it acts.
type confirm struct {
	action  string // "regenerate", "edit", "new", "open", "quit", "delete" or "select"
	id      int64  // the message to regenerate from or edit
	session string // the session to open
}

// ask makes c wait for its key to be pressed again: the question (text, in st's error style)
// takes the status line, in front, until the next key; the notice n gives way to it.
func (s *stack) ask(c confirm, text string, st *theme, n *noticeLine) {
	n.setNotice("", false)
	s.Remove(question.ID)
	s.Push(question.New(text, c, st.Error))
}

// asked is the question standing in front; "" when none does.
func (s *stack) asked() string {
	if q, ok := s.Front().(*question.Question); ok {
		return q.Text()
	}
	return ""
}

// leaving says what leaving now would stop, for a question ending in what the key then does
// ("opens a new session"); "" when nothing would be lost.
func (r *runs) leaving(key, then string) string {
	switch n := len(r.queue); {
	case r.active != nil:
		return "a reply is being written: " + key + " again stops it and " + then
	case n > 0:
		return fmt.Sprintf("%s wait to be sent: %s again %s without sending them", chat.Plural(n, "queued message"), key, then)
	}
	return ""
}

// leaveQuestion is what an action that leaves the session (c) asks before it goes on, ending in
// what its key then does; "" when it may go on now: nothing runs, or its key was pressed again
// (pending).
func (r *runs) leaveQuestion(c, pending confirm, key, then string) string {
	if pending == c {
		return ""
	}
	return r.leaving(key, then)
}

// quitQuestion is what ctrl+c (k) with nothing to stop and nothing typed asks before it quits;
// "" when it quits now. With messages a stop held, or a failed reply offered to be sent again
// (offered, by send), it asks first; soon after a reply ended (or was stopped) it was meant to
// stop that reply, and asks too. ctrl+c again (pending) quits.
func (r *runs) quitQuestion(pending confirm, offered bool, now time.Time, k, send string) string {
	if pending == quitting {
		return ""
	}
	switch {
	case r.leaving(k, "quits") != "":
		return r.leaving(k, "quits")
	case offered:
		return "the last reply can be sent again (" + send + "): " + k + " again quits without it"
	case now.Sub(r.runEnded) < selectGuard:
		return "nothing to stop: the reply has ended · " + k + " again quits"
	}
	return ""
}

// quitting is the question of a key that quits.
var quitting = confirm{action: "quit"}

// laterThan counts the messages of t after the turn of message id: after its reply when it is an
// operator message answered, else after it. They are what regenerating or editing it
// supersedes beyond the turn itself.
func laterThan(t *transcript.List, id int64) int {
	if r := t.Reply(id); r != 0 {
		return t.Later(r)
	}
	return t.Later(id)
}

// regenerateSelected is r on the selected reply. A reply with messages after it asks first:
// regenerating supersedes them all.
func (m *Model) regenerateSelected(pending confirm) tea.Cmd {
	id := m.transcript.Selected()
	c := confirm{action: "regenerate", id: id}
	if q := supersedeQuestion(m.transcript, c, pending, m.keys.Transcript.Regenerate, "regenerate"); q != "" {
		m.overlays.ask(c, q, m.styles, &m.noticeLine)
		return nil
	}
	return m.regenerateReply(id)
}

// compareSelected is R on the selected reply: the list of where to run it again. A reply with
// messages after it asks first, as r does.
func (m *Model) compareSelected(pending confirm) tea.Cmd {
	id := m.transcript.Selected()
	if r := m.transcript.Reply(id); r != 0 {
		id = r
	}
	c := confirm{action: "compare", id: id}
	if q := supersedeQuestion(m.transcript, c, pending, m.keys.Transcript.Compare, "run it again"); q != "" {
		m.overlays.ask(c, q, m.styles, &m.noticeLine)
		return nil
	}
	return m.listModels(id)
}

// editSelected is e on the selected message of the operator's. One with turns after its own
// asks first, as r does: sending the edit supersedes them all.
func (m *Model) editSelected(pending confirm) {
	id := m.transcript.Selected()
	c := confirm{action: "edit", id: id}
	if m.transcript.IsOperator(id) {
		if q := supersedeQuestion(m.transcript, c, pending, m.keys.Transcript.Edit, "edit"); q != "" {
			m.overlays.ask(c, q, m.styles, &m.noticeLine)
			return
		}
	}
	m.startEdit(id)
}

// supersedeQuestion is what to ask, once, before what ask does to a message of t with messages
// after it, or to a reply whose run called tools: doing it supersedes them all, and may run the
// tools again (`r again to regenerate from here — 2 later messages will be superseded`). It is
// "" when nothing need be asked, or ask is the question asked last (pending).
func supersedeQuestion(t *transcript.List, ask, pending confirm, again key.Binding, doing string) string {
	var why []string
	if tools := toolsRunAgain(t, ask.id); tools != "" {
		why = append(why, tools)
	}
	if n := laterThan(t, ask.id); n > 0 {
		why = append(why, chat.Plural(n, "later message")+" will be superseded")
	}
	if len(why) == 0 || pending == ask {
		return ""
	}
	return fmt.Sprintf("%s again to %s from here — %s", again.Help().Key, doing, strings.Join(why, "; "))
}
