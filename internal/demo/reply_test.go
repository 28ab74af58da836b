package demo

import (
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"
)

func TestReplyAnswersTheLastQuestion(t *testing.T) {
	tests := []struct {
		question string
		has      []string
	}{
		{"hello", []string{"Hello!", "offline demo endpoint"}},
		{"Hey, there", []string{"Hello!"}},
		{"what are the keys?", []string{"`shift+enter`", "`alt+enter`", "`ctrl+j`", "`esc`", "`k`/`j`", "`r`", "`y`", "`[` and `]`", "`?`", "`ctrl+c`", "`ctrl+d`"}},
		{"How do retries work?", []string{"Tier 1", "3 attempts", "`Retry-After`", "Tier 2", "`esc` cancels", "`enter` retries"}},
		{"what happens when the server is overloaded", []string{"Tier 1"}},
		{"how can I make it misbehave?", []string{"`/demo overload [N]`", "`/demo ratelimit DURATION`", "`/demo cut [N]`", "`/demo stall`", "`/demo think SHAPE [DURATION]`", "`/demo thinkonly [SHAPE]`", "`/demo stallafter N`", "`/demo length`"}},
		{"what does /demo do", []string{"`/demo quota`"}},
		{"write a function that reverses a string", []string{"```go\n", "func retry(", "offline demo endpoint"}},
		{"What is the capital of France?", []string{"“What is the capital of France?”", "\n- ", "\n```sh\n"}},
	}
	for _, tt := range tests {
		got := Reply([]Message{{Role: "system", Content: "hello keys retry"}, {Role: "user", Content: tt.question}})
		for _, want := range tt.has {
			if !strings.Contains(got, want) {
				t.Errorf("reply to %q lacks %q:\n%s", tt.question, want, got)
			}
		}
		if got != Reply([]Message{{Role: "user", Content: tt.question}}) {
			t.Errorf("reply to %q depends on the system prompt", tt.question)
		}
	}
}

func TestGenericReplySaysItIsTheDemo(t *testing.T) {
	got := Reply([]Message{{Role: "user", Content: "hello"}, {Role: "assistant", Content: "Hi"}, {Role: "user", Content: "Tell me about Rome"}})
	first, _, _ := strings.Cut(got, "\n")
	if !strings.HasPrefix(first, "This is parley's offline demo endpoint") {
		t.Errorf("first line %q", first)
	}
	if got != Reply([]Message{{Role: "user", Content: "Tell me about Rome"}}) {
		t.Error("the reply does not follow the last user message alone")
	}
}

func TestQuoteIsOneShortLine(t *testing.T) {
	got := quote("line one\n\x1b]52;c;aGk=\x07 \x1b[31m" + strings.Repeat("word ", 40))
	if strings.ContainsAny(got, "\n\x1b\x07") || utf8.RuneCountInString(got) > 60 || !strings.HasSuffix(got, "…") || !strings.HasPrefix(got, "line one ]52;c;aGk= [31mword") {
		t.Errorf("quote %q", got)
	}
	if quote(" \n ") != "an empty message" {
		t.Errorf("empty quote %q", quote(" \n "))
	}
}

func TestTokensJoinBackExactly(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := rapid.String().Draw(t, "text")
		toks := appendTokens(nil, text)
		if strings.Join(toks, "") != text {
			t.Fatalf("tokens %q do not join to %q", toks, text)
		}
		for _, tok := range toks {
			if tok == "" {
				t.Fatalf("empty token in %q", toks)
			}
		}
	})
}

func TestTokensAreWordSized(t *testing.T) {
	text := Reply([]Message{{Role: "user", Content: "how do retries work"}})
	toks := appendTokens(nil, text)
	for _, tok := range toks {
		if strings.Trim(tok, " \t\n") != "" && utf8.RuneCountInString(tok) > maxTokenRunes {
			t.Errorf("token %q is longer than a word piece", tok)
		}
	}
	if avg := float64(utf8.RuneCountInString(text)) / float64(len(toks)); avg < 2.5 || avg > 5.5 {
		t.Errorf("%.1f characters per token, want about 4", avg)
	}
	want := []string{"How", " parley", " retries", " (", "explaine", "d", " by"}
	if strings.Join(toks[:len(want)], "|") != strings.Join(want, "|") {
		t.Errorf("first tokens %q, want %q", toks[:len(want)], want)
	}
}
