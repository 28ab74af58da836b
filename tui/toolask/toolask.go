// Package toolask is the question the chat screen asks before a tool call runs. It takes the
// focus: while it is in front no key reaches the draft, and only a choice moved to with the
// arrows and confirmed with enter answers it, so no word typed for the draft runs a tool.
package toolask

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"parley/internal/chat"
	"parley/internal/sanitize"
	"parley/internal/wrap"
	"parley/tui/overlay"
)

// ID names the question on the screen's stack of overlays.
const ID = "toolask"

// Choice is an answer to the question.
type Choice int

const (
	Once   Choice = iota // run this call
	Always               // run it and every later call of its tool this session
	Refuse               // do not run it: the refusal goes back as its result
)

// choices are the answers in the order they are shown.
var choices = []struct {
	choice Choice
	label  string
}{{Once, "run once"}, {Always, "always for this tool"}, {Refuse, "refuse"}}

// Keys are the question's keys.
type Keys struct {
	Prev, Next key.Binding // move to the choice before or after
	Confirm    key.Binding // answers with the chosen choice
	Stop       key.Binding // stops the turn; the screen names its own cancel key
}

// DefaultKeys are ←/→ (and shift+tab/tab) to choose, enter to confirm; stop names the
// screen's keys that stop the turn.
func DefaultKeys(stop key.Binding) Keys {
	return Keys{
		Prev:    key.NewBinding(key.WithKeys("left", "shift+tab"), key.WithHelp("←", "choose")),
		Next:    key.NewBinding(key.WithKeys("right", "tab"), key.WithHelp("→", "choose")),
		Confirm: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "confirm")),
		Stop:    stop,
	}
}

// Styles are what the question is drawn with.
type Styles struct {
	Question lipgloss.Style // the call asked about
	Choice   lipgloss.Style // a choice not chosen
	Chosen   lipgloss.Style // the chosen choice
	Hint     lipgloss.Style // the keys, and that typing waits
}

// Question is a call waiting for the operator's answer. Nothing is chosen at first: enter
// alone answers nothing.
type Question struct {
	Call   chat.ToolCall
	Result chat.ToolResult // names the server and tool
	// Answer takes the answer: true runs the call. Buffered: the loop takes it, or has gone.
	Answer chan<- bool

	keys   Keys
	styles Styles
	chosen int // index into choices; -1: none yet
	typed  bool
}

// Answered is the question answered with Choice.
type Answered struct{ Choice Choice }

// Stopped is the stop key pressed: the screen stops the turn, which ends the question.
type Stopped struct{}

// New returns the question before call.
func New(call chat.ToolCall, res chat.ToolResult, answer chan<- bool, keys Keys, styles Styles) *Question {
	return &Question{Call: call, Result: res, Answer: answer, keys: keys, styles: styles, chosen: -1}
}

// ID is the question's name on the stack.
func (*Question) ID() string { return ID }

// Update takes every key: the arrows choose, enter confirms what is chosen, the stop key
// stops; anything else is set aside, and the view says that typing waits for the answer.
func (q *Question) Update(msg tea.Msg) overlay.Action {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, q.keys.Stop):
		return Stopped{}
	case key.Matches(k, q.keys.Prev):
		q.chosen = (max(q.chosen, 0) + len(choices) - 1) % len(choices)
	case key.Matches(k, q.keys.Next):
		q.chosen = (q.chosen + 1) % len(choices)
	case key.Matches(k, q.keys.Confirm):
		if q.chosen >= 0 {
			return Answered{Choice: choices[q.chosen].choice}
		}
		q.typed = true
	default:
		q.typed = q.typed || k.Text != ""
	}
	return nil
}

// Summary is the call asked about, as one line: "everything.echo {…}".
func (q *Question) Summary() string {
	return sanitize.String(q.Result.Server) + "." + sanitize.String(q.Result.Tool) + " " + sanitize.String(q.Call.Arguments)
}

// Spoken is the question as one line of words, for a screen reader: the call, the answers in
// order, and the keys that choose and confirm.
func (q *Question) Spoken() string {
	labels := make([]string, len(choices))
	for i, c := range choices {
		labels[i] = c.label
	}
	return fmt.Sprintf("tool %s asks to run: %s; %s/%s choose, %s confirms, %s stops", q.Summary(), strings.Join(labels, ", "),
		q.keys.Prev.Help().Key, q.keys.Next.Help().Key, q.keys.Confirm.Help().Key, q.keys.Stop.Help().Key)
}

// Chosen is the answer chosen so far, as it is shown; "" before any.
func (q *Question) Chosen() string {
	if q.chosen < 0 {
		return ""
	}
	return choices[q.chosen].label
}

// View draws the question where the input was: the call, the choices, and the keys.
func (q *Question) View(width, _ int) []string {
	lines := wrap.Lines(fmt.Sprintf("run %s?", q.Summary()), max(width, 1))
	for i, l := range lines {
		lines[i] = q.styles.Question.Render(l)
	}
	parts := make([]string, len(choices))
	for i, c := range choices {
		if i == q.chosen {
			parts[i] = q.styles.Chosen.Render("[" + c.label + "]")
		} else {
			parts[i] = q.styles.Choice.Render(" " + c.label + " ")
		}
	}
	hint := q.keys.Prev.Help().Key + "/" + q.keys.Next.Help().Key + " choose · " + q.keys.Confirm.Help().Key + " confirm · " + q.keys.Stop.Help().Key + " stop"
	if q.typed {
		hint = "typing waits for this answer · " + hint
	}
	row := strings.Join(parts, " ") + "  " + q.styles.Hint.Render(hint)
	return append(lines, wrap.Lines(row, max(width, 1))...)
}

// Help is the question's keys, for the help line.
func (q *Question) Help() []key.Binding {
	choose := key.NewBinding(key.WithKeys(append(q.keys.Prev.Keys(), q.keys.Next.Keys()...)...),
		key.WithHelp(q.keys.Prev.Help().Key+"/"+q.keys.Next.Help().Key, "choose"))
	return []key.Binding{choose, q.keys.Confirm, q.keys.Stop}
}

// Word is what the screen says once the call is answered with c: "running echo {…}".
func Word(c Choice) string {
	if c == Refuse {
		return "refused"
	}
	return "running"
}
