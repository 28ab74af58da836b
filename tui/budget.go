package tui

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"parley/agent"
	"parley/internal/chat"
	"parley/retry"
	"parley/tui/inputbox"
)

// This file owns the context budget on screen: the plan of the next send (agent.Plan, the one
// computation the client also sends by), made when what it weighs changes and never per key
// or frame; the header's size against the window and the line above the input that say it;
// and the reads behind them. Pins and /compact, which steer it, are in compact.go.

// gauges are the numbers the header measures: the context budget, what the provider last said
// is left of its rate limits, and what the session has spent. Model embeds them.
type gauges struct {
	// budget is what the next send carries against the model's window.
	budget budget
	// limits is what the provider last said is left of its rate limits (limitsKnown: it said),
	// shown when little is left.
	limits      chat.Remaining
	limitsKnown bool
	// spent is what the session has spent, as last read from the database.
	spent agent.Spent
}

// told is what the header says of the gauges at now: the context's size, limits running low,
// and the spend when a spend guard prices it (priced).
func (g *gauges) told(now time.Time, priced bool) []string {
	var told []string
	if g.budget.label != "" {
		told = append(told, g.budget.label)
	}
	if g.limitsKnown && retry.Low(g.limits, now) {
		told = append(told, limitsLabel(g.limits, now))
	}
	if priced && g.spent.Tokens > 0 {
		told = append(told, spentLabel(g.spent))
	}
	return told
}

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
	// tools is the estimate of the tools' schemas the next send offers, made when they change.
	tools int
	// plan is what the next send, with the input as its message, leaves out; rev is the input's
	// revision it was made with. label and leaveOut are what the header and the line above the
	// input say of it, made with it.
	plan            agent.Plan
	rev             int
	label, leaveOut string
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
	m.toolsChanged() // a run since the last read may have started tool servers; plans it
	return nil
}

// budgetChanged reads the budget again when the model changed since it was read: a comparison
// of names, made after every message; the plan itself is made only when what it weighs
// changes.
func (m *Model) budgetChanged() tea.Cmd {
	if m.budget.read && m.budget.model != m.modelName() {
		return m.readBudget()
	}
	return nil
}

// draftPlanned plans the next send again when the input changed since the plan was made: it
// is called when the draft settles (draft.go's tick), not per key, as planning weighs the
// whole conversation. number is the transcript's number of a message, pin the key that pins.
func (b *budget) draftPlanned(in *inputbox.Box, number func(int64) int, pin string) {
	if b.read && b.rev != in.Rev() {
		b.replan(in, number, pin)
	}
}

// toolsChanged weighs the tools the next send offers again (of the servers started so far:
// none is started to count), and plans it: a tool turned on or off, or a server started,
// changes what every request carries.
func (m *Model) toolsChanged() {
	m.budget.tools = 0
	if m.tools != nil {
		m.budget.tools = agent.ToolTokens(m.tools.OfferedSoFar())
	}
	m.budget.replan(&m.input, m.transcript.Number, m.keys.Transcript.Pin.Help().Key)
}

// replan plans the next send: what was read, and in's text as the message sent, with the tools'
// schemas; and words what the header and the line above the input say of it, naming messages
// by number (the transcript's) and the key that pins one (pin).
func (b *budget) replan(in *inputbox.Box, number func(int64) int, pin string) {
	if !b.read {
		return
	}
	draft := in.Value()
	next := append(slices.Clip(b.msgs), chat.Message{Role: chat.RoleUser, Content: draft})
	b.plan, b.rev = agent.NewPlan(next, b.window, b.source, b.tools), in.Rev()
	b.label, b.leaveOut = "", ""
	if len(b.msgs) > 0 || draft != "" {
		b.label = planLabel(b.plan)
	}
	if p := b.plan; p.Omitted+p.Images > 0 {
		var what []string
		if p.Omitted > 0 {
			var nums []int
			for i, drop := range p.Drop {
				if drop && i < len(b.ids) {
					nums = append(nums, number(b.ids[i]))
				}
			}
			what = append(what, messagesNamed(nums, p.Omitted))
		}
		if p.Images > 0 {
			what = append(what, chat.Plural(p.Images, "earlier image"))
		}
		b.leaveOut = fmt.Sprintf("next send leaves out %s · ~%s tok · %s pins one", strings.Join(what, " and "),
			chat.FormatTokens(p.LeftOut), pin)
	}
}

// planLabel is the header's word on the context: the conversation's size against the room the
// window leaves the prompt, with the window and who said it, "ctx ~3900/3072 · 126% (4096,
// llama-server)": past 100% the next send leaves things out. The tokens alone when the window
// is unknown.
func planLabel(p agent.Plan) string {
	tokens := "ctx ~" + contextTokens(p.Size)
	if p.Window <= 0 || p.Room() <= 0 {
		return tokens + " tok"
	}
	return fmt.Sprintf("%s/%s · %d%% (%s, %s)", tokens, contextTokens(p.Room()), p.Size*100/p.Room(),
		contextTokens(p.Window), p.Source)
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
func (b *budget) leaveOutView(style lipgloss.Style, width int) []string {
	if b.leaveOut == "" {
		return nil
	}
	return []string{style.Render(ansi.Truncate(b.leaveOut, width, "…"))}
}

// messagesNamed names n messages by their numbers as the transcript shows them, "messages 3–14",
// "message 2", "messages 1–4, 6"; numbers it does not show (0) are counted only.
func messagesNamed(nums []int, n int) string {
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
