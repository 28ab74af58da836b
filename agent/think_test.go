package agent

import (
	"strings"
	"testing"
)

// splitAll feeds text to a splitter in pieces of size n (every piece boundary a place a tag
// can be cut) and returns the thinking and answer it handed on.
func splitAll(text string, n int, holdBare, failed bool) (reasoning, answer string) {
	s := thinkSplitter{holdBare: holdBare}
	var r, a strings.Builder
	for i := 0; i < len(text); i += n {
		x, y := s.split(text[i:min(i+n, len(text))])
		r.WriteString(x)
		a.WriteString(y)
	}
	x, y := s.end(failed)
	r.WriteString(x)
	a.WriteString(y)
	return r.String(), a.String()
}

func TestThinkSplitter(t *testing.T) {
	t.Parallel()
	thinking := "The user asks about TCP. First, recall the handshake: SYN, SYN-ACK, ACK.\nSo the answer < 3 steps > 2."
	answer := "TCP opens with a **three-way handshake**.\n\n```go\nif a < b && c > d {}\n```\n"
	cases := []struct {
		name            string
		in              string
		holdBare        bool
		failed          bool
		wantR, wantA    string
		skipSmallPieces bool
	}{
		{"no thinking", answer, false, false, "", answer, false},
		{"tags", "<think>" + thinking + "</think>\n\n" + answer, false, false, thinking, answer, false},
		{"tags after white space", "\n <think>\n" + thinking + "</think>" + answer, false, false, "\n" + thinking, answer, false},
		{"bare close, held", thinking + "</think>\n\n" + answer, true, false, thinking, answer, false},
		{"bare close, not a thinker", thinking + "</think>" + answer, false, false, "", thinking + "</think>" + answer, false},
		{"held, never closed: the answer", answer, true, false, "", answer, false},
		{"held, failed before close: thinking", thinking, true, true, thinking, "", false},
		{"tags, failed while thinking", "<think>" + thinking, false, true, thinking, "", false},
		{"tags, cut at the token limit while thinking", "<think>" + thinking, false, false, thinking, "", false},
		{"tag named otherwise", "<thinking>x</thinking> y", false, false, "", "<thinking>x</thinking> y", false},
		{"only white space", "  \n", false, false, "", "", false},
		{"a later think tag is text", answer + "<think>no</think>", false, false, "", answer + "<think>no</think>", false},
	}
	for _, c := range cases {
		for _, n := range []int{1, 2, 3, 7, 8, 1000} {
			r, a := splitAll(c.in, n, c.holdBare, c.failed)
			if r != c.wantR || a != c.wantA {
				t.Errorf("%s, pieces of %d: thinking %q, answer %q; want %q, %q", c.name, n, r, a, c.wantR, c.wantA)
			}
		}
	}
}

// The answer streams as it arrives once it is known to be the answer: a splitter holds back
// only a possible tag.
func TestThinkSplitterDoesNotHoldTheAnswer(t *testing.T) {
	t.Parallel()
	s := thinkSplitter{}
	if r, a := s.split("Hello"); r != "" || a != "Hello" {
		t.Fatalf("got %q, %q", r, a)
	}
	s = thinkSplitter{}
	s.split("<think>abc</th")
	if r, a := s.split("ink>Answer"); r != "" || a != "Answer" {
		t.Fatalf("after a split close tag: %q, %q", r, a)
	}
}
