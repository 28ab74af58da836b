package tui

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"parley/history/stored"
	"parley/internal/attach"
	"parley/internal/sanitize"
)

// This file owns system prompts on the chat screen: which one the next messages carry (the
// one parley started with, a session's own, /role, /system), storing it before the message
// it applies to, and showing it in the header and the transcript.

// Role is a system prompt with a name, one of those /role chooses from.
type Role struct {
	Name, System string
	// Profile and Model are what the role runs on: /role switches to its model, and names the
	// profile, which applies only when parley starts with the role.
	Profile, Model string
}

// roleNames lists the roles for a notice: their names, sorted, or "none defined".
func roleNames(roles map[string]Role) string {
	if len(roles) == 0 {
		return "none defined"
	}
	return strings.Join(slices.Sorted(maps.Keys(roles)), ", ")
}

// startup is what the screen was started with, kept across sessions.
type startup struct {
	// system is the prompt parley started with; explicit is set when it was asked for.
	system   stored.SystemPrompt
	explicit bool
	roles    map[string]Role
	// attachLimits are the largest text file and image /file attaches.
	attachLimits attach.Limits
	// send is sent once the first session is open, then cleared.
	send string
	// chooseModel and modelProblem say, when nothing named a model, what the endpoint
	// answered: models to choose from, or why there are none (Options).
	chooseModel  []string
	modelProblem string
}

// nextMessage is what goes with the next message sent.
type nextMessage struct {
	// system is the system prompt of the next messages; stored before the next one when it
	// is not the session's already. Its Text is empty for none.
	system stored.SystemPrompt
	// files are attached to the next message (attach.go).
	files []attach.File
	// edit is the operator message the next message replaces, 0 when it is a new one;
	// beforeEdit is what the input held before the edit began (edit.go).
	edit       int64
	beforeEdit string
	// title is what /title named a session not stored yet: it is stored with it (session.go).
	title string
}

func newStartup(o Options) (startup, nextMessage) {
	s := startup{system: o.System, explicit: o.SystemExplicit, roles: o.Roles, attachLimits: o.AttachLimits, send: o.Send,
		chooseModel: o.ChooseModel, modelProblem: o.ModelProblem}
	if s.attachLimits == (attach.Limits{}) {
		s.attachLimits = attach.DefaultLimits
	}
	return s, nextMessage{system: o.System, files: o.Attachments}
}

// sessionOpened chooses the system prompt of the session just opened, whose own stored prompt
// is prompt and which has msgs: the one parley was asked to start with, for the first session;
// else the session's own; else, in a session with nothing in it, the one parley started
// with. Then it sends the message parley was started with, if any.
func (m *Model) sessionOpened(prompt stored.SystemPrompt, msgs []stored.Message) tea.Cmd {
	first := m.sessionGen == 0
	switch {
	case first && m.start.explicit:
		m.next.system = m.start.system
	case prompt.Text != "":
		m.next.system = prompt
	case len(msgs) == 0:
		m.next.system = m.start.system
	default:
		m.next.system = stored.SystemPrompt{}
	}
	if first && (m.start.modelProblem != "" || len(m.start.chooseModel) > 0) {
		// No model yet: the question waits in the input, not lost, while one is chosen.
		if m.start.send != "" && m.input.Empty() {
			m.input.SetValue(m.start.send)
		}
		m.start.send = ""
		if m.start.modelProblem != "" {
			m.setNotice(sanitize.String(m.start.modelProblem), true)
			return nil
		}
		return m.handleModels(modelsMsg{models: m.start.chooseModel})
	}
	if text := m.start.send; first && text != "" {
		m.start.send = ""
		return m.sendInput(text)
	}
	return nil
}

// postSystem stores p as the session's system prompt before a message, unless it is that
// already, and returns the message stored (ID 0 when none was); an empty p stores the removal
// of the session's prompt, if it has one. It runs inside a command.
func postSystem(db Store, sessionID string, p stored.SystemPrompt) (stored.Message, error) {
	switch {
	case p.Text != "":
		return db.PostSystem(sessionID, p)
	case sessionID != "":
		// None: a prompt the session has stops here (/role none, /system off).
		return db.RemoveSystem(sessionID)
	}
	return stored.Message{}, nil
}

// noPrompt reports whether a /role or /system argument asks for no system prompt.
func noPrompt(arg string) bool {
	return strings.EqualFold(arg, "none") || strings.EqualFold(arg, "off")
}

// removeSystem is /role none and /system off: the next messages go without a system prompt.
func (n *nextMessage) removeSystem(notice *noticeLine) {
	n.system = stored.SystemPrompt{}
	notice.setNotice("no system prompt for the next messages", false)
}

// roleCommand is /role: alone it lists the roles; with a name it makes that role's prompt,
// and model, those of the next messages; /role none removes the prompt. It reports whether it
// did what was asked.
func (m *Model) roleCommand(name string) bool {
	switch {
	case name == "":
		now := cmp.Or(m.next.systemLabel(), "none")
		m.setNotice(fmt.Sprintf("roles: %s · now: %s (/role NAME chooses, /role none removes it)", roleNames(m.start.roles), now), false)
		return true
	case noPrompt(name):
		m.next.removeSystem(&m.noticeLine)
		return true
	}
	r, ok := m.start.roles[name]
	if !ok {
		m.setNotice(fmt.Sprintf("no role %q (roles: %s); add roles/%s.md beside config.toml", sanitize.String(name), roleNames(m.start.roles), sanitize.String(name)), true)
		return false
	}
	m.next.system = stored.SystemPrompt{Role: r.Name, Text: r.System}
	note := "role " + r.Name + " for the next messages"
	if r.Model != "" && m.client != nil {
		m.client = m.client.WithModel(r.Model)
		note += ", model " + r.Model
	}
	if r.Profile != "" && m.client != nil && r.Profile != m.client.Endpoint().Name {
		note += fmt.Sprintf(" (its profile %s applies with parley --role %s)", r.Profile, r.Name)
	}
	m.setNotice(note, false)
	return true
}

// systemCommand is /system: alone it shows the system prompt of the next messages; with text
// it makes the text that prompt; /system off removes it.
func (m *Model) systemCommand(text string) {
	if text == "" {
		first, _, _ := strings.Cut(m.next.system.Text, "\n")
		if first == "" {
			first = "none (/system TEXT sets one)"
		} else {
			first += " (/system off removes it)"
		}
		m.setNotice("system prompt: "+sanitize.String(first), false)
		return
	}
	if noPrompt(text) {
		m.next.removeSystem(&m.noticeLine)
		return
	}
	m.next.system = stored.SystemPrompt{Text: text}
	m.setNotice("system prompt set for the next messages", false)
}

// systemLabel names the system prompt of the next messages for the header: the role, or
// "system prompt" for one given as text.
func (n *nextMessage) systemLabel() string {
	switch {
	case n.system.Role != "":
		return "role " + sanitize.String(n.system.Role)
	case n.system.Text != "":
		return "system prompt"
	}
	return ""
}
