// Package transcript is the chat screen's list of messages: it owns the messages shown, their
// renders (cached per width and version, replies' markdown in chunks within a quota of work
// per frame), the window scrolled over them and the selected message.
//
// transcript.go adds and removes messages, run.go follows the runs writing replies, query.go
// answers what the screen asks about the messages, render.go draws them, thinking.go shows a
// reply's thinking, pastes.go collapses what an operator message holds at length, intro.go is
// the first screen (and what the screen tells the transcript), and scroll.go moves the window
// and the selection.
package transcript

import (
	"slices"
	"strings"

	"charm.land/lipgloss/v2"

	"parley/history/stored"
	"parley/internal/attach"
	"parley/internal/chat"
	"parley/internal/markdown"
	"parley/internal/sanitize"
)

// Styles are what the transcript draws with, for one terminal background.
type Styles struct {
	UserLabel  lipgloss.Style // "You" above an operator message
	UserText   lipgloss.Style // an operator message's text
	ReplyLabel lipgloss.Style // "Assistant" above a reply
	Muted      lipgloss.Style // model names, thinking, system prompts, queued and cancelled notes
	Error      lipgloss.Style // a failed reply's outcome
	Warn       lipgloss.Style // an interrupted reply, a finish note, a note about a retry
	Selected   lipgloss.Style // the gutter mark of the selected message
}

// entry is one message of the transcript and its render cache.
type entry struct {
	message stored.Message // as stored; message.Content is not kept up to date while streaming
	// text is the sanitized content. While streaming it only grows.
	text strings.Builder
	san  sanitize.Stream // state for streamed deltas, which may split an escape sequence
	// version counts changes of text and status; a cached render of another version is stale.
	version int
	// streaming is set while a run writes to this reply: its render is refreshed per frame,
	// not per change.
	streaming bool
	// think is the reply's thinking, shown apart from the answer; tools its tool calls.
	think thinking
	tools tools
	// note is a line under a reply about a retry of it that left it in place.
	note string
	// mark is the reply's place among its versions, zero when it has none other.
	mark stored.Mark
	// seam is, for a reply continued from a cut one, where in text the continuation begins;
	// 0 otherwise.
	seam int
	// number is the message's number as shown (context.go), 0 for a system prompt; cut is set
	// on the first message after where /compact cut.
	number int
	cut    bool
	// files are the files attached to an operator message; folds what of its text shows
	// collapsed (pastes.go), long says it is long with nothing known folded in it, and whole
	// shows it all the same.
	files []attach.Span
	folds []folded
	long  bool
	whole bool
	// md renders the reply in chunks, those on screen; it is kept while the reply streams or
	// has chunks left to render.
	md    markdown.Stream
	cache struct {
		width, version int
		dark           bool
		lines          []string // nil until rendered
	}
}

// List is the scrollable list of messages. It renders each message once per width and
// keeps the render; finished messages never render again. Nothing it does costs more than
// the lines on screen: the window is found by walking entries from the top line (or back
// from the end when following), rendering only those it passes, so a session of thousands of
// messages opens and scrolls as fast as a short one.
type List struct {
	entries []*entry
	byID    map[int64]*entry
	width   int // total width, gutter included
	height  int
	dark    bool
	styles  Styles
	md      markdown.Renderer
	// follow keeps the window at the bottom as text arrives; scrolling up clears it and
	// reaching the bottom again (or end) sets it.
	follow bool
	// top is the first line on screen when not following.
	top linePos
	// sel is the index of the selected reply, or -1.
	sel int
	// stream is the reply a run is writing to, or nil.
	stream *entry
	// held is set while queued replies wait for the operator (esc stopped the reply before
	// them), not for the reply before them to end; sendKey is the key that sends them then.
	held    bool
	sendKey string
	// pastes are the long pastes sent from the input box: operator messages show them
	// collapsed, under the box's label.
	pastes []sentPaste
	// folding counts the operator messages shown with something collapsed; seams the replies
	// shown that continue a cut one.
	folding, seams int
	// opts is what the screen tells the transcript (SetOptions).
	opts Options
	// quota is how much markdown may still be rendered for the current message (see
	// markdown.FrameQuota); unfinished holds the entries on screen whose render it left
	// unfinished.
	quota      int
	unfinished []*entry
	// reading is the widest a message's text is set, however wide the screen; 0: no cap.
	reading int
	// hideSeams leaves the seams of continued replies unmarked.
	hideSeams bool
	// compactedBefore is where /compact cut (SetCompaction), 0 when it did not; earlier counts
	// the messages before the first shown that are still to be read (SetEarlier).
	compactedBefore int64
	earlier         int
	// unnumbered hides the numbers (HideNumbers).
	unnumbered bool
}

// New returns an empty transcript, drawn with styles, that follows its end.
func New(styles Styles) *List {
	return &List{byID: map[int64]*entry{}, styles: styles, follow: true, sel: -1, dark: true, quota: markdown.FrameQuota}
}

// Reset replaces the messages and goes back to following the end.
func (t *List) Reset(msgs []stored.Message) {
	// A session can hold thousands of messages: their entries are made in one allocation.
	es := make([]entry, len(msgs))
	t.entries = make([]*entry, 0, len(msgs))
	t.byID = make(map[int64]*entry, len(msgs))
	t.folding, t.seams = 0, 0
	t.stream = nil
	for i, msg := range msgs {
		t.add(&es[i], msg)
	}
	t.follow, t.top, t.sel = true, linePos{}, -1
	t.compactedBefore, t.earlier = 0, 0
	t.renumber()
}

// Prepend adds older messages before the first, keeping the window and the selection on the
// same messages.
func (t *List) Prepend(msgs []stored.Message) {
	if len(msgs) == 0 {
		return
	}
	es := make([]entry, len(msgs))
	older := make([]*entry, 0, len(msgs)+len(t.entries))
	for i, msg := range msgs {
		t.fill(&es[i], msg)
		older = append(older, &es[i])
		if selectable(msg) {
			t.earlier = max(t.earlier-1, 0)
		}
	}
	t.entries = append(older, t.entries...)
	t.top.entry += len(msgs)
	if t.sel >= 0 {
		t.sel += len(msgs)
	}
	t.renumber()
	t.SetCompaction(t.compactedBefore)
}

// Append adds a message at the end.
func (t *List) Append(msg stored.Message) {
	t.add(new(entry), msg)
	t.renumber()
}

// InsertAfter adds msg right after message after (at the end when after is not shown), where a
// reply that replaces an earlier one belongs even when messages were posted meanwhile.
func (t *List) InsertAfter(after int64, msg stored.Message) {
	i := slices.IndexFunc(t.entries, func(e *entry) bool { return e.message.ID == after })
	if i < 0 {
		t.Append(msg)
		return
	}
	e := new(entry)
	t.fill(e, msg)
	t.entries = slices.Insert(t.entries, i+1, e)
	if t.sel > i {
		t.sel++
	}
	t.renumber()
}

// add makes e the entry of msg and appends it.
func (t *List) add(e *entry, msg stored.Message) {
	t.fill(e, msg)
	t.entries = append(t.entries, e)
}

// fill makes e the entry of message msg.
func (t *List) fill(e *entry, msg stored.Message) {
	e.message = msg
	e.text.Grow(len(msg.Content))
	e.san.Append(&e.text, msg.Content)
	if e.seam = seamAt(msg.Role, msg.Content, msg.Seam); e.seam > 0 {
		t.seams++
	}
	e.fillThinking(msg)
	e.fillTools(msg)
	if msg.Role == chat.RoleUser {
		t.fold(e)
	}
	t.byID[msg.ID] = e
}

// SetMarks sets each reply's place among its versions, by message id; a reply not in marks
// has none other.
func (t *List) SetMarks(marks map[int64]stored.Mark) {
	for _, e := range t.entries {
		if mk := marks[e.message.ID]; mk != e.mark {
			e.mark = mk
			e.version++
		}
	}
}

// Len returns the number of messages.
func (t *List) Len() int { return len(t.entries) }

// SetSize sets the width and height of the window.
func (t *List) SetSize(width, height int) {
	t.width, t.height = max(width, gutter+10), max(height, 0)
	t.clampTop()
}

// SetReadingWidth sets the widest, in columns, that messages' text is set: lines of prose
// much longer than that are hard to read. 0 sets them as wide as the screen.
func (t *List) SetReadingWidth(n int) {
	if n != t.reading {
		t.reading = n
		for _, e := range t.entries {
			e.cache.lines = nil
		}
	}
}

// ReadingWidth returns the widest that messages' text is set; 0: as wide as the screen.
func (t *List) ReadingWidth() int { return t.reading }

// Height returns the height of the window.
func (t *List) Height() int { return t.height }

// SetStyles sets the styles the transcript draws with from now on.
func (t *List) SetStyles(styles Styles) { t.styles = styles }

// SetDark renders markdown for a dark or light background; renders are redone lazily.
func (t *List) SetDark(dark bool) { t.dark = dark }

// Remove takes messages out of the transcript (a regeneration superseded them), clears the
// selection if it was one of them, and follows the end.
func (t *List) Remove(ids []int64) {
	if len(ids) == 0 {
		return
	}
	selected := t.Selected()
	kept := make([]*entry, 0, len(t.entries))
	for _, e := range t.entries {
		if slices.Contains(ids, e.message.ID) {
			delete(t.byID, e.message.ID)
			if e.folded() {
				t.folding--
			}
			if e.seam > 0 {
				t.seams--
			}
			if t.stream == e {
				t.stream = nil
			}
			continue
		}
		kept = append(kept, e)
	}
	t.entries, t.sel, t.follow, t.top = kept, -1, true, linePos{}
	for i, e := range kept {
		if e.message.ID == selected {
			t.sel = i
		}
	}
	t.renumber()
	t.SetCompaction(t.compactedBefore)
}
