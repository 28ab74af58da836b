package transcript

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"parley/internal/attach"
	"parley/internal/chat"
	"parley/internal/markdown"
	"parley/internal/sanitize"
	"parley/internal/wrap"
)

// This file draws the transcript: each message's render, cached per width and version, and
// the window of lines on screen.

// gutter is the width of the column left of every transcript line that marks the selected
// reply.
const gutter = 2

// lines returns the render of entry i, rendering it if its cache is stale. A streaming
// entry keeps its render until Refresh drops it.
func (t *List) lines(i int) []string {
	e := t.entries[i]
	c := &e.cache
	if c.lines == nil || c.width != t.width || c.dark != t.dark || (c.version != e.version && !e.streaming) {
		c.lines, c.width, c.dark, c.version = t.render(e), t.width, t.dark, e.version
	}
	return c.lines
}

// render draws one message: a label line, the text, the run's outcome, and a blank line. A
// reply's markdown is drawn by its markdown.Stream, which renders its chunks when they are on
// screen (see Prepare); the Stream is kept while the reply streams or has chunks left to render.
func (t *List) render(e *entry) []string {
	st := t.styles
	w := t.width - gutter
	// The text is set no wider than the reading width; what parley says about it is not.
	tw := w
	if t.reading > 0 {
		tw = min(w, t.reading)
	}
	if e.message.Role == chat.RoleSystem {
		return t.renderSystem(e, w)
	}
	var out []string
	if e.cut {
		out = append(out, st.Muted.Render(ansi.Truncate(compactedLine, w, "…")))
	}
	if e.message.Role == chat.RoleUser {
		out = append(out, st.UserLabel.Render("You")+t.labelTail(e))
		for _, l := range wrap.Lines(t.collapsed(e), tw-2) {
			out = append(out, "  "+st.UserText.Render(l))
		}
		for _, im := range e.message.Images {
			out = append(out, "  "+st.Muted.Render(ansi.Truncate(sanitize.String(attach.Chip(im)), w-2, "…")))
		}
		return append(out, "")
	}
	label := st.ReplyLabel.Render("Assistant")
	if e.message.Model != "" {
		label += st.Muted.Render(" · " + ModelName(e.message.Model))
	}
	if e.mark.Of > 1 {
		label += st.Muted.Render(fmt.Sprintf(" ‹ %d/%d ›", e.mark.N, e.mark.Of))
	}
	out = append(out, label+t.labelTail(e))
	out = append(out, t.thinkingLines(e, w)...)
	out = append(out, t.toolLines(e, w)...)
	if text := e.text.String(); text != "" {
		e.md.SetGrowing(e.streaming)
		if e.seam > 0 && !t.hideSeams {
			from := len(out)
			out = e.md.Render(&t.md, out, withSeam(text, e.seam), tw, t.dark, &t.quota)
			dimSeams(out[from:])
		} else {
			out = e.md.Render(&t.md, out, text, tw, t.dark, &t.quota)
		}
	}
	if !e.streaming && e.md.Rendered() {
		e.md = markdown.Stream{}
	}
	out = append(out, t.outcome(e, w)...)
	if e.note != "" {
		out = append(out, indent(wrap.Lines(e.note, w-2), st.Warn)...)
	}
	return append(out, "")
}

// compactedLine is drawn where /compact cut: what is above it is no longer sent.
const compactedLine = "── compacted: the messages above are left out of requests, pinned ones aside ──"

// labelTail is what follows a message's label: its number, and whether it is pinned.
func (t *List) labelTail(e *entry) string {
	tail := ""
	if e.number > 0 {
		tail = fmt.Sprintf(" · #%d", e.number)
	}
	if e.message.Pinned {
		tail += " · pinned"
	}
	if tail == "" {
		return ""
	}
	return t.styles.Muted.Render(tail)
}

// ModelName is a model as a label shows it: one named by a file's path (llama-server serves
// /models/llama-3.1-8b.gguf under that name unless given an alias, and a relative -m path as
// given: models/x.gguf) by the file's name. A provider's name with a slash (openai/gpt-4o) is
// no path and stays whole.
func ModelName(model string) string {
	path := strings.HasPrefix(model, "/") || strings.HasPrefix(model, "./") || strings.HasPrefix(model, "../") ||
		strings.HasPrefix(model, "~/") || strings.Contains(model, `\`) ||
		strings.HasSuffix(strings.ToLower(model), ".gguf")
	if !path {
		return model
	}
	if i := strings.LastIndexAny(model, `/\`); i < len(model)-1 {
		return model[i+1:]
	}
	return model
}

// systemLines is how many lines of a system prompt the transcript shows.
const systemLines = 3

// renderSystem draws a system prompt: a muted label and its first lines.
func (t *List) renderSystem(e *entry, w int) []string {
	st := t.styles
	label := "System prompt"
	if r := e.message.SystemRole; r != "" {
		label += " · role " + sanitize.String(r)
	}
	if e.text.Len() == 0 {
		// A removal (/role none, /system off): the messages after it go without a prompt.
		return []string{st.Muted.Bold(true).Render("System prompt removed"), ""}
	}
	out := []string{st.Muted.Bold(true).Render(label)}
	lines := strings.Split(ansi.Wrap(e.text.String(), w-2, ""), "\n")
	if more := len(lines) - systemLines; more == 1 {
		lines = append(lines[:systemLines], "… 1 more line (parley export shows it)")
	} else if more > 1 {
		lines = append(lines[:systemLines], fmt.Sprintf("… %d more lines (parley export shows them)", more))
	}
	out = append(out, indent(lines, st.Muted)...)
	return append(out, "")
}

// outcome returns the lines that say how a reply's run ended, if it did not simply succeed.
func (t *List) outcome(e *entry, w int) []string {
	words, style := t.outcomeWords(e)
	if words == "" {
		if e.message.Status == chat.StatusRunning && e.text.Len() == 0 {
			return indent([]string{"…"}, t.styles.Muted)
		}
		return nil
	}
	if e.message.Status == chat.StatusFailed {
		words = "✗ " + words
	}
	return indent(wrap.Lines(words, w-2), style)
}

// outcomeWords is what the transcript says under reply e of how its run went, and the style it
// says it in; "" when it says nothing. The screen reader's line of a reply's end says the same.
func (t *List) outcomeWords(e *entry) (string, lipgloss.Style) {
	st := t.styles
	switch e.message.Status {
	case chat.StatusQueued:
		if t.held {
			return "queued: held since the stop, " + t.sendKey + " sends it", st.Muted
		}
		return "queued: sends when the current reply ends", st.Muted
	case chat.StatusSucceeded:
		return chat.FinishNote(e.message.FinishReason, e.text.String()), st.Warn
	case chat.StatusCancelled:
		return "cancelled", st.Muted
	case chat.StatusInterrupted:
		return "interrupted: parley stopped while this reply was streaming", st.Warn
	case chat.StatusFailed:
		msg := "failed"
		if c := e.message.Retry; c != nil {
			msg = sanitize.String(c.Label)
			if c.Message != "" {
				msg += " — " + sanitize.String(c.Message)
			}
		}
		if e.text.Len() > 0 {
			// The text above is what arrived before the failure: it stays, and says so.
			msg = "cut off here · " + msg
		}
		return msg, st.Error
	}
	return "", st.Muted
}

// indent styles lines and sets them two columns in, under the label.
func indent(lines []string, style lipgloss.Style) []string {
	for i, l := range lines {
		lines[i] = "  " + style.Render(l)
	}
	return lines
}

// Prepare renders the replies' chunks that the window shows, within the quota, and notes the
// entries it left unfinished. Rendering a chunk changes how many lines it takes, and so what
// the window shows: the window is found again until it shows nothing left to render.
func (t *List) Prepare() {
	t.unfinished = t.unfinished[:0]
	for changed := true; changed; {
		changed = false
		t.eachVisible(func(e *entry, from, to int) {
			if e.md.RenderRange(&t.md, e.text.String(), from, to, &t.quota) {
				e.cache.lines, changed = nil, true
			}
		})
	}
	t.eachVisible(func(e *entry, from, to int) {
		if e.md.Unfinished(from, to) {
			t.unfinished = append(t.unfinished, e)
		}
	})
}

// eachVisible calls f with each entry on screen and the lines of its render that show.
func (t *List) eachVisible(f func(e *entry, from, to int)) {
	start, lines := t.window()
	left := len(lines)
	for i, from := start.entry, start.line; i < len(t.entries) && left > 0; i, from = i+1, 0 {
		n := min(len(t.lines(i))-from, left)
		f(t.entries[i], from, from+n)
		left -= n
	}
}

// View returns exactly height lines: the visible window, each behind its gutter.
func (t *List) View() []string {
	if len(t.entries) == 0 {
		return t.intro()
	}
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
func (t *List) window() (linePos, []string) {
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
