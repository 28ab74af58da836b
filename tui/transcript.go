package tui

import (
	"slices"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"parley/agent/chat"
	"parley/history"
	"parley/tui/sanitize"
)

// gutter is the width of the column left of every transcript line that marks the selected
// reply.
const gutter = 2

// entry is one message of the transcript and its render cache.
type entry struct {
	msg history.Message // as stored; msg.Content is not kept up to date while streaming
	// text is the sanitized content. While streaming it only grows.
	text strings.Builder
	san  sanitize.Stream // state for streamed deltas, which may split an escape sequence
	// version counts changes of text and status; a cached render of another version is stale.
	version int
	// streaming is set while a run writes to this reply: its render is refreshed per frame,
	// not per change.
	streaming bool
	// md renders the reply while it streams, and once more when it has finished: glued
	// renders equal full ones, so the finished reply's render costs only its last tail.
	md    streamMD
	cache struct {
		width, version int
		dark           bool
		lines          []string // nil until rendered
	}
}

// linePos is a line of the transcript: line number line of entry entry's render.
type linePos struct{ entry, line int }

// transcriptView is the scrollable list of messages. It renders each message once per width and
// keeps the render; finished messages never render again. Nothing it does costs more than
// the lines on screen: the window is found by walking entries from the top line (or back
// from the end when following), rendering only those it passes, so a session of thousands of
// messages opens and scrolls as fast as a short one.
type transcriptView struct {
	entries []*entry
	byID    map[int64]*entry
	width   int // total width, gutter included
	height  int
	dark    bool
	styles  *theme
	md      markdown
	// follow keeps the window at the bottom as text arrives; scrolling up clears it and
	// reaching the bottom again (or end) sets it.
	follow bool
	// top is the first line on screen when not following.
	top linePos
	// sel is the index of the selected reply, or -1.
	sel int
	// stream is the reply a run is writing to, or nil.
	stream *entry
}

// newTranscript returns an empty transcript that follows its end.
func newTranscript(styles *theme) *transcriptView {
	return &transcriptView{byID: map[int64]*entry{}, styles: styles, follow: true, sel: -1, dark: true}
}

// Reset replaces the messages and goes back to following the end.
func (t *transcriptView) Reset(msgs []history.Message) {
	// A session can hold thousands of messages: their entries are made in one allocation.
	es := make([]entry, len(msgs))
	t.entries = make([]*entry, 0, len(msgs))
	t.byID = make(map[int64]*entry, len(msgs))
	t.stream = nil
	for i, m := range msgs {
		t.add(&es[i], m)
	}
	t.follow, t.top, t.sel = true, linePos{}, -1
}

// Prepend adds older messages before the first, keeping the window and the selection on the
// same messages.
func (t *transcriptView) Prepend(msgs []history.Message) {
	if len(msgs) == 0 {
		return
	}
	es := make([]entry, len(msgs))
	older := make([]*entry, 0, len(msgs)+len(t.entries))
	for i, m := range msgs {
		t.fill(&es[i], m)
		older = append(older, &es[i])
	}
	t.entries = append(older, t.entries...)
	t.top.entry += len(msgs)
	if t.sel >= 0 {
		t.sel += len(msgs)
	}
}

// Append adds a message at the end.
func (t *transcriptView) Append(m history.Message) { t.add(new(entry), m) }

func (t *transcriptView) add(e *entry, m history.Message) {
	t.fill(e, m)
	t.entries = append(t.entries, e)
}

// fill makes e the entry of message m.
func (t *transcriptView) fill(e *entry, m history.Message) {
	e.msg = m
	e.text.Grow(len(m.Content))
	e.san.Append(&e.text, m.Content)
	t.byID[m.ID] = e
}

// Len returns the number of messages.
func (t *transcriptView) Len() int { return len(t.entries) }

// SetSize sets the width and height of the window.
func (t *transcriptView) SetSize(width, height int) {
	t.width, t.height = max(width, gutter+10), max(height, 0)
	t.clampTop()
}

// SetDark chooses the styles for a dark or light background; renders are redone lazily.
func (t *transcriptView) SetDark(dark bool) { t.dark = dark }

// SetStatus records a new run status for message id (and its failure, if any).
func (t *transcriptView) SetStatus(id int64, st chat.Status, fail *chat.Classification) {
	if e := t.byID[id]; e != nil {
		e.msg.Status, e.msg.Retry = st, fail
		e.version++
	}
}

// StartStreaming marks reply id as being written by a running run.
func (t *transcriptView) StartStreaming(id int64) {
	if e := t.byID[id]; e != nil {
		e.streaming = true
		e.msg.Status = chat.StatusRunning
		t.stream = e
		e.version++
	}
}

// AppendDelta adds streamed text to reply id. The text shows on the next Refresh.
func (t *transcriptView) AppendDelta(id int64, text string) {
	if e := t.byID[id]; e != nil {
		e.san.Append(&e.text, text)
		e.version++
	}
}

// Refresh renders again the replies that are streaming and have changed since their last
// render. It is called once per frame, so a burst of deltas costs one render.
func (t *transcriptView) Refresh() {
	if e := t.stream; e != nil && e.cache.version != e.version {
		e.cache.lines = nil
	}
}

// Finish ends the streaming of reply id with its final status; it renders once more and is
// then frozen.
func (t *transcriptView) Finish(id int64, st chat.Status, fail *chat.Classification) {
	if e := t.byID[id]; e != nil {
		e.streaming = false
		if t.stream == e {
			t.stream = nil
		}
		e.msg.Status, e.msg.Retry = st, fail
		e.version++
	}
}

// Text returns the sanitized text of message id.
func (t *transcriptView) Text(id int64) string {
	if e := t.byID[id]; e != nil {
		return e.text.String()
	}
	return ""
}

// Status returns the run status shown for message id.
func (t *transcriptView) Status(id int64) chat.Status {
	if e := t.byID[id]; e != nil {
		return e.msg.Status
	}
	return ""
}

// lines returns the render of entry i, rendering it if its cache is stale. A streaming
// entry keeps its render until Refresh drops it.
func (t *transcriptView) lines(i int) []string {
	e := t.entries[i]
	c := &e.cache
	if c.lines != nil && c.width == t.width && c.dark == t.dark && (c.version == e.version || e.streaming) {
		return c.lines
	}
	c.lines, c.width, c.dark, c.version = t.render(e), t.width, t.dark, e.version
	return c.lines
}

// render draws one message: a label line, the text, the run's outcome, and a blank line.
func (t *transcriptView) render(e *entry) []string {
	st := t.styles
	w := t.width - gutter
	var out []string
	if e.msg.Role == history.RoleUser {
		out = append(out, st.UserLabel.Render("You"))
		for _, l := range strings.Split(ansi.Wrap(e.text.String(), w-2, ""), "\n") {
			out = append(out, "  "+st.UserText.Render(l))
		}
		return append(out, "")
	}
	label := st.ReplyLabel.Render("Assistant")
	if e.msg.Model != "" {
		label += st.Muted.Render(" · " + e.msg.Model)
	}
	out = append(out, label)
	if text := e.text.String(); text != "" {
		switch {
		case e.streaming:
			out = append(out, e.md.render(&t.md, text, w, t.dark)...)
		case e.md.width == w && e.md.dark == t.dark:
			// Just finished: the stable prefix is rendered already. Later renders (a new
			// width, a new status) are full ones.
			out = append(out, e.md.render(&t.md, text, w, t.dark)...)
			e.md = streamMD{}
		default:
			out = append(out, t.md.full(text, w, t.dark)...)
		}
	}
	out = append(out, t.outcome(e, w)...)
	return append(out, "")
}

// outcome returns the lines that say how a reply's run ended, if it did not simply succeed.
func (t *transcriptView) outcome(e *entry, w int) []string {
	st := t.styles
	wrap := func(s string) []string { return strings.Split(ansi.Wrap(s, w-2, ""), "\n") }
	switch e.msg.Status {
	case chat.StatusQueued:
		return indent(wrap("queued: sends when the current reply ends"), st.Muted)
	case chat.StatusRunning:
		if e.text.Len() == 0 {
			return indent([]string{"…"}, st.Muted)
		}
	case chat.StatusCancelled:
		return indent([]string{"cancelled"}, st.Muted)
	case chat.StatusInterrupted:
		return indent(wrap("interrupted: parley stopped while this reply was streaming"), st.Warn)
	case chat.StatusFailed:
		msg := "failed"
		if c := e.msg.Retry; c != nil {
			msg = sanitize.String(c.Label)
			if c.Message != "" {
				msg += " — " + sanitize.String(c.Message)
			}
		}
		return indent(wrap("✗ "+msg), st.Error)
	}
	return nil
}

// indent styles lines and sets them two columns in, under the label.
func indent(lines []string, style lipgloss.Style) []string {
	for i, l := range lines {
		lines[i] = "  " + style.Render(l)
	}
	return lines
}

// View returns exactly height lines: the visible window, each behind its gutter.
func (t *transcriptView) View() []string {
	start, lines := t.window()
	out := make([]string, 0, t.height)
	pos := start
	for _, l := range lines {
		for pos.line >= len(t.lines(pos.entry)) {
			pos = linePos{pos.entry + 1, 0}
		}
		mark := "  "
		if pos.entry == t.sel {
			mark = t.styles.Selected.Render("▌ ")
		}
		out = append(out, mark+l)
		pos.line++
	}
	for len(out) < t.height {
		out = append(out, "")
	}
	return out
}

// window returns the first visible line and the visible lines, at most height of them.
func (t *transcriptView) window() (linePos, []string) {
	if t.height == 0 || len(t.entries) == 0 {
		return linePos{}, nil
	}
	start := t.top
	if t.follow {
		start = t.bottomTop()
	}
	out := make([]string, 0, t.height)
	for i, off := start.entry, start.line; i < len(t.entries) && len(out) < t.height; i, off = i+1, 0 {
		ls := t.lines(i)
		out = append(out, ls[min(off, len(ls)):min(len(ls), off+t.height-len(out))]...)
	}
	return start, out
}

// bottomTop returns the top line of the window that ends at the last line.
func (t *transcriptView) bottomTop() linePos {
	need := t.height
	for i := len(t.entries) - 1; i >= 0; i-- {
		n := len(t.lines(i))
		if n >= need {
			return linePos{i, n - need}
		}
		need -= n
	}
	return linePos{}
}

// current returns the top line of the window as it is shown now.
func (t *transcriptView) current() linePos {
	if t.follow {
		return t.bottomTop()
	}
	return t.top
}

// back returns the line n lines above p, stopping at the first line.
func (t *transcriptView) back(p linePos, n int) linePos {
	for n > 0 {
		if p.line >= n {
			p.line -= n
			return p
		}
		n -= p.line
		if p.entry == 0 {
			return linePos{}
		}
		p.entry--
		p.line = len(t.lines(p.entry))
	}
	return p
}

// forward returns the line n lines below p; past the last line it returns {Len(), 0}.
func (t *transcriptView) forward(p linePos, n int) linePos {
	for n > 0 && p.entry < len(t.entries) {
		rest := len(t.lines(p.entry)) - p.line
		if rest > n {
			p.line += n
			return p
		}
		n -= rest
		p = linePos{p.entry + 1, 0}
	}
	return p
}

// setTop shows the window from p, and follows when that window reaches the last line.
func (t *transcriptView) setTop(p linePos) {
	end := t.forward(p, t.height)
	if end.entry >= len(t.entries) {
		t.follow = true
		return
	}
	t.follow, t.top = false, p
}

// clampTop keeps the top line inside its entry after a change of width.
func (t *transcriptView) clampTop() {
	if t.follow || len(t.entries) == 0 || t.width == 0 {
		return
	}
	if t.top.entry >= len(t.entries) {
		t.follow = true
		return
	}
	if n := len(t.lines(t.top.entry)); t.top.line >= n {
		t.top.line = n - 1
	}
}

// ScrollUp moves the window n lines up and stops following.
func (t *transcriptView) ScrollUp(n int) {
	p := t.back(t.current(), n)
	t.setTop(p)
}

// ScrollDown moves the window n lines down; reaching the end follows again.
func (t *transcriptView) ScrollDown(n int) {
	if t.follow {
		return
	}
	t.setTop(t.forward(t.top, n))
}

// GotoTop shows the first message.
func (t *transcriptView) GotoTop() { t.setTop(linePos{}) }

// GotoBottom shows the end and follows it.
func (t *transcriptView) GotoBottom() { t.follow = true }

// Following reports whether the window sticks to the end.
func (t *transcriptView) Following() bool { return t.follow }

// Selected returns the selected reply's message id, or 0.
func (t *transcriptView) Selected() int64 {
	if t.sel < 0 || t.sel >= len(t.entries) {
		return 0
	}
	return t.entries[t.sel].msg.ID
}

// SelectLast selects the newest reply.
func (t *transcriptView) SelectLast() {
	t.sel = -1
	t.selectFrom(len(t.entries)-1, -1)
}

// SelectPrev selects the reply before the selected one, if any.
func (t *transcriptView) SelectPrev() { t.selectFrom(t.sel-1, -1) }

// SelectNext selects the reply after the selected one, if any.
func (t *transcriptView) SelectNext() { t.selectFrom(t.sel+1, 1) }

// ClearSelection selects nothing.
func (t *transcriptView) ClearSelection() { t.sel = -1 }

// selectFrom selects the first reply from index i in direction dir and scrolls it into view.
func (t *transcriptView) selectFrom(i, dir int) {
	for ; i >= 0 && i < len(t.entries); i += dir {
		if t.entries[i].msg.Role == history.RoleAssistant {
			t.sel = i
			t.reveal(i)
			return
		}
	}
}

// reveal scrolls so that entry i is on screen, its top first when it is taller than the window.
func (t *transcriptView) reveal(i int) {
	start := t.current()
	end := t.forward(start, t.height)
	if (start.entry < i || start == linePos{i, 0}) && end.entry > i {
		return // fully visible
	}
	if start.entry >= i {
		t.setTop(linePos{i, 0})
		return
	}
	// Below the window: bring its last line to the bottom, unless it is taller than the window.
	p := t.back(linePos{i + 1, 0}, t.height)
	if p.entry < i {
		t.setTop(p)
	} else {
		t.setTop(linePos{i, 0})
	}
}

// Anchor returns the operator message that reply id answers, or 0.
func (t *transcriptView) Anchor(id int64) int64 {
	if e := t.byID[id]; e != nil {
		return e.msg.AnchorID
	}
	return 0
}

// Last returns the id of the newest message, or 0.
func (t *transcriptView) Last() int64 {
	if len(t.entries) == 0 {
		return 0
	}
	return t.entries[len(t.entries)-1].msg.ID
}

// LastReply returns the id of the newest reply, or 0.
func (t *transcriptView) LastReply() int64 {
	for i := len(t.entries) - 1; i >= 0; i-- {
		if t.entries[i].msg.Role == history.RoleAssistant {
			return t.entries[i].msg.ID
		}
	}
	return 0
}

// Remove takes messages out of the transcript (a regeneration superseded them), clears the
// selection if it was one of them, and follows the end.
func (t *transcriptView) Remove(ids []int64) {
	if len(ids) == 0 {
		return
	}
	selected := t.Selected()
	kept := make([]*entry, 0, len(t.entries))
	for _, e := range t.entries {
		if slices.Contains(ids, e.msg.ID) {
			delete(t.byID, e.msg.ID)
			if t.stream == e {
				t.stream = nil
			}
			continue
		}
		kept = append(kept, e)
	}
	t.entries, t.sel, t.follow, t.top = kept, -1, true, linePos{}
	for i, e := range kept {
		if e.msg.ID == selected {
			t.sel = i
		}
	}
}
