package tui

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"parley/agent"
	"parley/internal/chat"
)

// This file owns the context budget on screen: how full the model's window is (the header),
// what the next send leaves out (the line above the input), and the reads behind both. Pins and
// /compact, which steer it, are in compact.go.

// budget is what the next send carries, against the model's window.
type budget struct {
	// gen counts reads asked for; an answer to an older one is dropped. model is the model
	// the newest read was asked for: another model is read again.
	gen   int
	model string
	// read is set once a read answered for the open session.
	read bool
	// window is the model's context window, 0 when unknown, and source names what said it.
	window int
	source string
	// msgs are what the next send carries before the message being typed, ids their ids.
	msgs []chat.Message
	ids  []int64
	// rev is the input's revision plan was made for, and draft the estimate of the input then;
	// plan is what the next send, with the input as its message, leaves out.
	rev, draft int
	plan       agent.SendPlan
}

// budgetMsg carries a read of the budget: the model's facts, what the next send carries
// before the message being typed, and where /compact cut (0: nowhere).
type budgetMsg struct {
	sessionGen, gen int
	facts           agent.ModelFacts
	msgs            []chat.Message
	ids             []int64
	compacted       int64
	err             error
}

// readBudget asks the endpoint for the model's window (once per model: the client keeps it)
// and the database for what the next send carries, in a command: asking may take seconds.
func (m *Model) readBudget() tea.Cmd {
	if m.client == nil || m.db == nil {
		return nil
	}
	m.budget.gen++
	m.budget.model = m.modelName()
	db, client, id, sessionGen, gen := m.db, m.client, m.session.ID, m.sessionGen, m.budget.gen
	return func() tea.Msg {
		msg := budgetMsg{sessionGen: sessionGen, gen: gen, facts: client.Facts(context.Background())}
		msg.msgs, msg.ids, msg.err = db.NextContext(id)
		if msg.err == nil {
			msg.compacted, msg.err = db.CompactedBefore(id)
		}
		return msg
	}
}

// handleBudget keeps a read of the budget, and shows where /compact cut.
func (m *Model) handleBudget(msg budgetMsg) tea.Cmd {
	if msg.gen != m.budget.gen || !m.accepts(msg.sessionGen, msg.err, "read the conversation's size") {
		return nil
	}
	b := &m.budget
	b.read, b.window, b.source, b.msgs, b.ids = true, msg.facts.Window, msg.facts.WindowSource, msg.msgs, msg.ids
	m.transcript.SetCompaction(msg.compacted)
	m.planBudget()
	return nil
}

// budgetChanged reads the budget again when the model changed since it was read, and plans it
// again when the input did: both change what the next send carries.
func (m *Model) budgetChanged() tea.Cmd {
	if m.budget.read && m.budget.model != m.modelName() {
		return m.readBudget()
	}
	if b := &m.budget; b.read && b.rev != m.input.Rev() {
		// Planning weighs the whole conversation: it is done again only when the input's
		// estimate changed, not on every key.
		b.rev = m.input.Rev()
		if agent.EstimateText(m.input.Value()) != b.draft {
			m.planBudget()
		}
	}
	return nil
}

// planBudget plans the next send: what was read, and the input as the message sent, with the
// schemas of the tools it offers (of the servers started so far: none is started to count).
func (m *Model) planBudget() {
	b := &m.budget
	draft := m.input.Value()
	next := append(slices.Clip(b.msgs), chat.Message{Role: chat.RoleUser, Content: draft})
	tools := 0
	if m.tools != nil {
		tools = agent.ToolTokens(m.tools.OfferedSoFar())
	}
	b.plan, b.rev, b.draft = agent.PlanSend(next, b.window, tools), m.input.Rev(), agent.EstimateText(draft)
}

// budgetLabel is the header's word on the context: "ctx ~812/1024 · 79% (llama-server)", or
// the tokens alone when the window is unknown; "" before the first read, and while there is
// nothing to send yet.
func (m *Model) budgetLabel() string {
	b := m.budget
	if !b.read || len(b.msgs) == 0 && m.input.Empty() {
		return ""
	}
	tokens := "ctx ~" + contextTokens(b.plan.Tokens)
	if b.window <= 0 {
		return tokens + " tok"
	}
	return fmt.Sprintf("%s/%s · %d%% (%s)", tokens, contextTokens(b.window), b.plan.Tokens*100/b.window, b.source)
}

// contextTokens writes a count of tokens against a window: whole below 10,000, where windows
// are set by hand (1024, 4096) and rounding would hide the number set; briefly above.
func contextTokens(n int) string {
	if n < 10_000 {
		return strconv.Itoa(n)
	}
	return chat.FormatTokens(n)
}

// leaveOutView is the line above the input before a send that compaction will trim: "next send
// leaves out messages 3–14 · ~18k tok · p pins one"; "" when it trims nothing.
func (m *Model) leaveOutView() string {
	p := m.budget.plan
	if p.Omitted+p.Images == 0 {
		return ""
	}
	var what []string
	if p.Omitted > 0 {
		var nums []int
		for i, drop := range p.Drop {
			if drop && i < len(m.budget.ids) {
				nums = append(nums, m.transcript.Number(m.budget.ids[i]))
			}
		}
		what = append(what, m.messagesNamed(nums, p.Omitted))
	}
	if p.Images > 0 {
		what = append(what, chat.Plural(p.Images, "earlier image"))
	}
	line := fmt.Sprintf("next send leaves out %s · ~%s tok · %s pins one", strings.Join(what, " and "),
		chat.FormatTokens(p.LeftOut), m.keys.Transcript.Pin.Help().Key)
	return m.styles.Warn.Render(ansi.Truncate(line, m.width, "…"))
}

// leaveOutHeight is the height of leaveOutView: one line, or none.
func (m *Model) leaveOutHeight() int {
	if m.budget.plan.Omitted+m.budget.plan.Images == 0 {
		return 0
	}
	return 1
}

// messagesNamed names n messages by their numbers as the transcript shows them, "messages 3–14",
// "message 2", "messages 1–4, 6"; numbers it does not show (0) are counted only.
func (m *Model) messagesNamed(nums []int, n int) string {
	nums = slices.DeleteFunc(nums, func(k int) bool { return k == 0 })
	if len(nums) == 0 {
		return chat.Plural(n, "earlier message")
	}
	slices.Sort(nums)
	var ranges []string
	for i := 0; i < len(nums); {
		j := i
		for j+1 < len(nums) && nums[j+1] == nums[j]+1 {
			j++
		}
		r := strconv.Itoa(nums[i])
		if j > i {
			r += "–" + strconv.Itoa(nums[j])
		}
		ranges = append(ranges, r)
		i = j + 1
	}
	word := "messages "
	if len(nums) == 1 {
		word = "message "
	}
	return word + strings.Join(ranges, ", ")
}
