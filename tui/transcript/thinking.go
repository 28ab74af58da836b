package transcript

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/sanitize"
)

// This file shows a reply's thinking: apart from the answer, as one dim line that counts while
// the model thinks and says for how long once the answer starts, expanded on request.

// thinking is what an entry keeps of its reply's thinking.
type thinking struct {
	text strings.Builder // sanitized
	san  sanitize.Stream
	// from is when the request that thought was sent and until when the last thinking
	// arrived; both zero for a stored reply, whose timing this screen did not see.
	from, until time.Time
	// stored is how long the model thought as its run stored it (0: not known), which the
	// line says once it is known, so a reply reads the same reopened; tokens is what the
	// endpoint said the thinking took (0: not said, so it is estimated).
	stored time.Duration
	tokens int
	// expanded shows the whole thinking instead of its one line.
	expanded bool
}

// AppendReasoning adds streamed thinking to reply id at now; the model has been thinking
// since its request was sent (a held bare </think> arrives all at once, at its end).
func (t *List) AppendReasoning(id int64, text string, sent, now time.Time) {
	e := t.byID[id]
	if e == nil {
		return
	}
	if e.think.from.IsZero() {
		e.think.from = now
		if !sent.IsZero() && sent.Before(now) {
			e.think.from = sent
		}
	}
	e.think.until = now
	e.think.san.Append(&e.think.text, text)
	e.version++
}

// fillThinking takes a stored reply's thinking.
func (e *entry) fillThinking(msg stored.Message) {
	if msg.Reasoning != "" {
		e.think.text.WriteString(sanitize.String(msg.Reasoning))
	}
	e.think.stored, e.think.tokens = msg.Thought, msg.ReasoningTokens
}

// SetThinkingTokens records what the endpoint said reply id's thinking took.
func (t *List) SetThinkingTokens(id int64, n int) {
	if e := t.byID[id]; e != nil && n > 0 {
		e.think.tokens = n
		e.version++
	}
}

// SetThought records how long reply id's model thought, as its run stored it.
func (t *List) SetThought(id int64, d time.Duration) {
	if e := t.byID[id]; e != nil && d > 0 {
		e.think.stored = d
		e.version++
	}
}

// ToggleThinking expands or collapses the thinking of reply id, and reports whether it has any.
func (t *List) ToggleThinking(id int64) bool {
	e := t.byID[id]
	if e == nil || e.think.text.Len() == 0 {
		return false
	}
	e.think.expanded = !e.think.expanded
	e.version++
	return true
}

// thinkingLines renders an entry's thinking at width w: collapsed, "Thinking… 14s · 312 tok"
// with its newest words while the model thinks, then "Thought for 38s" (as stored, once it
// is); expanded, the text. The tokens are the endpoint's count when it gave one, else an
// estimate marked "~".
func (t *List) thinkingLines(e *entry, w int) []string {
	th := &e.think
	if th.text.Len() == 0 {
		return nil
	}
	st := t.styles
	text := th.text.String()
	tokens := chat.FormatTokens(th.tokens) + " tok"
	if th.tokens == 0 {
		// No count from the endpoint: four characters a token, said as the estimate it is.
		tokens = "~" + chat.FormatTokens((utf8.RuneCountInString(text)+3)/4) + " tok"
	}
	var head string
	switch {
	case e.streaming && e.text.Len() == 0:
		head = "Thinking… " + chat.FormatElapsed(th.until.Sub(th.from)) + " · " + tokens
		if room := w - 4 - ansi.StringWidth(head) - 3; !th.expanded && room > 10 {
			// The newest words trail after the count, on the same line.
			words := strings.Join(strings.Fields(text[max(0, len(text)-4*room):]), " ")
			if ansi.StringWidth(words) > room {
				words = "…" + ansi.TruncateLeft(words, ansi.StringWidth(words)-room+1, "")
			}
			head += " · " + words
		}
	case th.stored > 0:
		head = "Thought for " + chat.FormatElapsed(th.stored) + " · " + tokens
	case !th.from.IsZero():
		head = "Thought for " + chat.FormatElapsed(th.until.Sub(th.from)) + " · " + tokens
	default:
		head = "Thought · " + tokens
	}
	if !th.expanded {
		return []string{"  " + st.Muted.Italic(true).Render("▸ "+head)}
	}
	out := []string{"  " + st.Muted.Italic(true).Render("▾ "+head)}
	for _, l := range strings.Split(ansi.Wrap(strings.TrimSpace(text), w-4, ""), "\n") {
		out = append(out, "    "+st.Muted.Render(l))
	}
	return append(out, "")
}
