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
	"parley/tui/transcript"
)

// This file owns the context budget on screen: the plan of the next send (agent.Plan, the one
// computation the client also sends by), made when what it weighs changes and never per key
// or frame; the header's size against the window and the line above the input that say it;
// and the reads behind them. Pins and /compact, which steer it, are below.

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

// handleSpent shows what the session has spent, unless it could not be read, and what is left
// of the provider's limits.
func (g *gauges) handleSpent(msg spentMsg) {
	if msg.err == nil {
		g.spent = msg.spent
	}
	g.limits, g.limitsKnown = msg.limits, msg.known
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

// fetch asks the endpoint (e's client) for the model's window (once per model: the client
// keeps it) and the database for what the open session's (s) next send carries, in a command:
// asking may take seconds.
func (b *budget) fetch(s *sessionState, e *endpoints) tea.Cmd {
	if e.client == nil || s.db == nil {
		return nil
	}
	b.gen++
	b.model = e.modelName()
	db, client, id, sessionGen, gen := s.db, e.client, s.session.ID, s.sessionGen, b.gen
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
	if msg.gen != m.budget.gen || !m.accepts(&m.noticeLine, msg.sessionGen, msg.err, "read the conversation's size") {
		return nil
	}
	b := &m.budget
	b.read, b.window, b.source, b.msgs, b.ids = true, msg.facts.Window, msg.facts.WindowSource, msg.msgs, msg.ids
	m.transcript.SetCompaction(msg.compacted)
	m.budget.toolsChanged(m.tools, &m.input, m.transcript, m.keys.Transcript.Pin.Help().Key) // a run since the last read may have started tool servers; plans it
	return nil
}

// changed reads the budget again when the model changed since it was read: a comparison
// of names, made after every message; the plan itself is made only when what it weighs
// changes.
func (b *budget) changed(s *sessionState, e *endpoints) tea.Cmd {
	if b.read && b.model != e.modelName() {
		return b.fetch(s, e)
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
// none is started to count), and plans it with the input (in) and t's numbering (pin is the
// key that pins): a tool turned on or off, or a server started, changes what every request
// carries.
func (b *budget) toolsChanged(tools *toolbox, in *inputbox.Box, t *transcript.List, pin string) {
	b.tools = 0
	if tools != nil {
		b.tools = agent.ToolTokens(tools.OfferedSoFar())
	}
	b.replan(in, t.Number, pin)
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

// This part owns what steers the context budget: p pins the selected message so that
// compaction never leaves it out, and /compact leaves the older messages out of every later
// request once the operator has seen which.

// pinnedMsg reports that message id was pinned or unpinned, or why not.
type pinnedMsg struct {
	sessionGen int
	id         int64
	pinned     bool
	err        error
}

// compactedMsg reports that /compact was stored, with what it left out, or why not.
type compactedMsg struct {
	sessionGen int
	leftOut    string
	err        error
}

// pinSelected pins the message selected in t, or unpins it when it is pinned.
func (s *sessionState) pinSelected(t *transcript.List) tea.Cmd {
	msg, ok := t.Message(t.Selected())
	if !ok || s.db == nil {
		return nil
	}
	db, gen, id, pin := s.db, s.sessionGen, msg.ID, !msg.Pinned
	return func() tea.Msg {
		return pinnedMsg{sessionGen: gen, id: id, pinned: pin, err: db.SetPinned(id, pin)}
	}
}

// handlePinned shows the pin, and weighs the next send again: a pin changes what it leaves out.
func (m *Model) handlePinned(msg pinnedMsg) tea.Cmd {
	if !m.accepts(&m.noticeLine, msg.sessionGen, msg.err, "pin the message") {
		return nil
	}
	m.transcript.SetPinned(msg.id, msg.pinned)
	n := m.transcript.Number(msg.id)
	if msg.pinned {
		m.setNotice(fmt.Sprintf("#%d pinned: compaction never leaves it out (%s unpins)", n, m.keys.Transcript.Pin.Help().Key), false)
	} else {
		m.setNotice(fmt.Sprintf("#%d unpinned", n), false)
	}
	return m.budget.fetch(&m.sessionState, &m.endpoints)
}

// compactCommand is /compact [N]: it leaves out of every later request what the next send
// would leave out, or with N all but the last N turns; pinned messages and the system prompt
// stay. It first says what that is, and acts when asked again.
func (m *Model) compactCommand(args string, pending confirm) (tea.Cmd, bool) {
	keep := 0
	if args != "" {
		n, err := strconv.Atoi(args)
		if err != nil || n < 1 {
			m.setNotice("/compact takes the number of recent turns to keep, like /compact 2", true)
			return nil, false
		}
		keep = n
	}
	cut := m.budget.compactCut(keep)
	if cut == 0 {
		m.setNotice("nothing to compact: the next send leaves no message out · /compact N keeps only the last N turns", false)
		return nil, true
	}
	var left, kept []chat.Message
	var nums []int
	for i, msg := range m.budget.msgs {
		if msg.Role != chat.RoleSystem && !msg.Pinned && m.budget.ids[i] < cut {
			left = append(left, msg)
			nums = append(nums, m.transcript.Number(m.budget.ids[i]))
		} else {
			kept = append(kept, msg)
		}
	}
	tokens := agent.EstimateTokens(m.budget.msgs) - agent.EstimateTokens(kept)
	if p := m.budget.plan; keep == 0 && p.Images == 0 {
		tokens = p.LeftOut // what the line above the input says: the same messages
	}
	what := fmt.Sprintf("%s · ~%s tok", messagesNamed(nums, len(left)), chat.FormatTokens(tokens))
	c := confirm{action: "compact", id: cut}
	if pending != c {
		m.overlays.ask(c, "/compact leaves out "+what+" from every later request (pinned ones stay; the history keeps all) · "+
			m.keys.Input.Send.Help().Key+" again applies it, any other key keeps them", m.styles, &m.noticeLine)
		return nil, false
	}
	db, gen, id := m.db, m.sessionGen, m.session.ID
	return func() tea.Msg {
		return compactedMsg{sessionGen: gen, leftOut: what, err: db.CompactBefore(id, cut)}
	}, true
}

// compactCut is the message /compact cuts before, keeping the last keep turns (0: leaving out
// what the plan of the next send leaves out, which may be every turn before the message being
// typed); 0 when that leaves nothing out.
func (b *budget) compactCut(keep int) int64 {
	if !b.read || len(b.msgs) == 0 {
		return 0
	}
	if keep > 0 {
		var turns []int64 // the operator messages, oldest first
		for i, msg := range b.msgs {
			if msg.Role == chat.RoleUser {
				turns = append(turns, b.ids[i])
			}
		}
		if keep >= len(turns) {
			return 0
		}
		return turns[len(turns)-keep]
	}
	// The plan leaves out the oldest turns, system prompts and pinned messages aside: the cut
	// is at the first message it keeps of the others, or after the last it leaves out.
	cut := int64(0)
	for i, msg := range b.msgs {
		switch {
		case b.plan.Drop[i]:
			cut = b.ids[i] + 1
		case msg.Role == chat.RoleSystem || msg.Pinned:
		case cut != 0:
			return b.ids[i]
		default:
			return 0 // the next send leaves nothing out
		}
	}
	return cut
}

// compacted says on n what /compact left out of the open session (s), and weighs the next send
// again (as e's client sees the window).
func (b *budget) compacted(msg compactedMsg, s *sessionState, e *endpoints, n *noticeLine) tea.Cmd {
	if !s.accepts(n, msg.sessionGen, msg.err, "compact the session") {
		return nil
	}
	n.setNotice("compacted: "+msg.leftOut+" left out of every later request", false)
	return b.fetch(s, e)
}

// limitsLabel writes what a provider said is left of its limits, as the header shows it when
// little is: "12 req · 18k tok left · resets 14:03".
func limitsLabel(r chat.Remaining, now time.Time) string {
	var parts []string
	if r.Requests >= 0 {
		parts = append(parts, chat.FormatTokens(r.Requests)+" req")
	}
	if r.Tokens >= 0 {
		parts = append(parts, chat.FormatTokens(r.Tokens)+" tok")
	}
	s := strings.Join(parts, " · ") + " left"
	reset := r.RequestsReset
	if r.TokensReset.After(reset) {
		reset = r.TokensReset
	}
	if reset.After(now) {
		s += " · resets " + chat.FormatClock(reset, now)
	}
	return s
}

// spentLabel writes what a session spent as the header shows it: "$0.042 · 12.3k tok", or
// "12.3k tok" when nothing was priced.
func spentLabel(s agent.Spent) string {
	if s.Cost == 0 {
		return "spent " + chat.FormatTokens(s.Tokens) + " tok"
	}
	return "spent " + chat.FormatCost(s.Cost) + " · " + chat.FormatTokens(s.Tokens) + " tok"
}
