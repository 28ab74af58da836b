package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"parley/internal/chat"
	"parley/internal/sanitize"
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

// ask makes c wait for its key to be pressed again: the question takes the status line, in
// front, until the next key.
func (m *Model) ask(c confirm, text string) {
	m.setNotice("", false)
	m.overlays.Remove(question.ID)
	m.overlays.Push(question.New(text, c, m.styles.Error))
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

// confirmLeave reports whether an action that leaves the session (c) may go on now: nothing
// runs, or its key was pressed again; otherwise it asks.
func (m *Model) confirmLeave(c confirm, pending confirm, key, then string) bool {
	question := m.leaving(key, then)
	if question == "" || pending == c {
		return true
	}
	m.ask(c, question)
	return false
}

// confirmQuit is ctrl+d (and /quit): it quits once the reply being written is stopped and
// stored, asking first.
func (m *Model) confirmQuit(pending confirm, key string) tea.Cmd {
	if !m.confirmLeave(confirm{action: "quit"}, pending, key, "quits") {
		return nil
	}
	return m.quitAfterActive()
}

// interruptQuit is ctrl+c with nothing to stop and nothing typed. With messages a stop held, or
// a failed reply offered to be sent again, it asks first; soon after a reply ended (or was
// stopped) it was meant to stop that reply, and asks too. ctrl+c again quits.
func (m *Model) interruptQuit(pending confirm) tea.Cmd {
	ask, k := confirm{action: "quit"}, m.keys.Chat.Interrupt.Help().Key
	question := m.leaving(k, "quits")
	switch {
	case question != "":
	case m.offered():
		question = "the last reply can be sent again (" + m.keys.Input.Send.Help().Key + "): " + k + " again quits without it"
	case m.clock.Now().Sub(m.runEnded) < selectGuard:
		question = "nothing to stop: the reply has ended · " + k + " again quits"
	}
	if question == "" || pending == ask {
		return m.quit()
	}
	m.ask(ask, question)
	return nil
}

// confirmOpen reports whether the picker may open session id, titled title: asked first while
// a reply is being written, as /new does.
func (m *Model) confirmOpen(id, title string, pending confirm) bool {
	if id == m.session.ID {
		return true
	}
	return m.confirmLeave(confirm{action: "open", session: id}, pending, m.keys.Picker.Choose.Help().Key,
		"opens “"+sanitize.String(title)+"”")
}

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
	if m.askSupersede(confirm{action: "regenerate", id: id}, pending, m.keys.Transcript.Regenerate, "regenerate") {
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
	if m.askSupersede(confirm{action: "compare", id: id}, pending, m.keys.Transcript.Compare, "run it again") {
		return nil
	}
	return m.listModels(id)
}

// editSelected is e on the selected message of the operator's. One with turns after its own
// asks first, as r does: sending the edit supersedes them all.
func (m *Model) editSelected(pending confirm) {
	id := m.transcript.Selected()
	if m.transcript.IsOperator(id) && m.askSupersede(confirm{action: "edit", id: id}, pending, m.keys.Transcript.Edit, "edit") {
		return
	}
	m.startEdit(id)
}

// askSupersede asks, once, before what ask does to a message with messages after it, or to a
// reply whose run called tools: doing it supersedes them all, and may run the tools again (`r
// again to regenerate from here — 2 later messages will be superseded`). It reports whether it
// asked; pending is the question asked last.
func (m *Model) askSupersede(ask, pending confirm, again key.Binding, doing string) bool {
	var why []string
	if tools := toolsRunAgain(m.transcript, ask.id); tools != "" {
		why = append(why, tools)
	}
	if n := laterThan(m.transcript, ask.id); n > 0 {
		why = append(why, chat.Plural(n, "later message")+" will be superseded")
	}
	if len(why) == 0 || pending == ask {
		return false
	}
	m.ask(ask, fmt.Sprintf("%s again to %s from here — %s", again.Help().Key, doing, strings.Join(why, "; ")))
	return true
}
