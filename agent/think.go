package agent

import "strings"

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// thinkSplitter separates thinking sent inline in a reply's content from the answer. Thinking
// is recognised only where models put it: at the very start of the content (after white
// space) as `<think>…</think>`, or, for a model whose chat template opens the tag itself
// (holdBare), as everything before a bare `</think>`. Text that only might be thinking waits
// in the splitter, never longer than it takes to tell; a tag split across deltas is found
// whole.
type thinkSplitter struct {
	state thinkState
	// pending is text not yet handed on: the start of the content while undecided, a tail
	// that may be the start of `</think>`, or, held, everything before a bare `</think>`.
	pending strings.Builder
	// holdBare is set for a model that may open its thinking in the prompt (see
	// inlineThinker): content is held until `</think>` shows it was thinking, or the reply
	// ends without one and it was the answer.
	holdBare bool
	// searched is how much of pending is known to hold no `</think>` that ends inside it, so
	// that held text is searched once, not again with every delta.
	searched int
}

type thinkState uint8

const (
	thinkStart  thinkState = iota // nothing but white space seen yet
	thinkInside                   // inside <think>…
	thinkHeld                     // held: before a bare </think>, or the answer
	thinkAnswer                   // the answer: everything passes through
	thinkAfter                    // just after </think>: white space before the answer is dropped
)

// split takes a content delta and returns what of the content so far is known to be thinking
// and what is known to be answer.
func (s *thinkSplitter) split(text string) (reasoning, answer string) {
	if s.state == thinkAnswer {
		return "", text
	}
	s.pending.WriteString(text)
	buf := s.pending.String()
	switch s.state {
	case thinkStart:
		t := strings.TrimLeft(buf, " \t\r\n")
		switch {
		case strings.HasPrefix(t, thinkOpen):
			s.state = thinkInside
			s.pending.Reset()
			return s.split(t[len(thinkOpen):])
		case t == "" || strings.HasPrefix(thinkOpen, t):
			return "", "" // not yet known
		case s.holdBare:
			s.state = thinkHeld
			s.pending.Reset()
			return s.split(buf)
		}
		s.state = thinkAnswer
		s.pending.Reset()
		return "", buf
	case thinkInside, thinkHeld:
		from := max(0, s.searched-len(thinkClose)+1)
		if i := strings.Index(buf[from:], thinkClose); i >= 0 {
			i += from
			s.state, s.searched = thinkAfter, 0
			s.pending.Reset()
			_, rest := s.split(buf[i+len(thinkClose):])
			return buf[:i], rest
		}
		if s.state == thinkHeld {
			s.searched = len(buf)
			return "", ""
		}
		// Keep back a tail that may be the start of </think>.
		keep := partialSuffix(buf, thinkClose)
		s.pending.Reset()
		s.pending.WriteString(buf[len(buf)-keep:])
		return buf[:len(buf)-keep], ""
	case thinkAfter:
		t := strings.TrimLeft(buf, " \t\r\n")
		s.pending.Reset()
		if t == "" {
			return "", ""
		}
		s.state = thinkAnswer
		return "", t
	}
	return "", ""
}

// end is called when the content ends, cleanly or not: it hands on what was waiting. Held
// text that never met `</think>` was the answer after all, unless the reply failed while it
// was still arriving, when it is most likely unfinished thinking; a start that was only white
// space is nothing.
func (s *thinkSplitter) end(failed bool) (reasoning, answer string) {
	buf := s.pending.String()
	s.pending.Reset()
	switch s.state {
	case thinkInside:
		return buf, ""
	case thinkHeld:
		if failed {
			return buf, ""
		}
		return "", buf
	case thinkStart:
		if strings.TrimSpace(buf) == "" {
			return "", ""
		}
		return "", buf
	}
	return "", ""
}

// partialSuffix returns the length of the longest suffix of s that is a proper prefix of tag.
func partialSuffix(s, tag string) int {
	for n := min(len(s), len(tag)-1); n > 0; n-- {
		if strings.HasSuffix(s, tag[:n]) {
			return n
		}
	}
	return 0
}
