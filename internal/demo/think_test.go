package demo

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"parley/internal/chat/chattest"
)

var sky = []Message{{Role: "user", Content: "Why is the sky blue?"}}

// textOf splits a chunk that carries text into its delta's members before the text (such as
// reasoningContentField) and the text, checking the delta byte for byte.
func textOf(t *testing.T, ch chunk) (field, text string, ok bool) {
	t.Helper()
	if len(ch.Choices) != 1 || ch.Choices[0].FinishReason != nil {
		return "", "", false
	}
	raw := string(ch.Choices[0].Delta)
	// The longer fields first: reasoningContentField starts like contentField.
	for _, f := range []string{reasoningContentField, reasoningField, contentField} {
		rest, ok := strings.CutPrefix(raw, "{"+f)
		if !ok {
			continue
		}
		rest, ok = strings.CutSuffix(rest, "}")
		if !ok || json.Unmarshal([]byte(rest), &text) != nil || string(jsonString(text)) != rest {
			t.Fatalf("delta %s: the text after %s is not one JSON string", raw, f)
		}
		return f, text, true
	}
	return "", "", false
}

// transcript is a stream read whole and sorted out.
type transcript struct {
	events   []string
	pieces   []piece // every chunk with text, in order; thinking marks the reasoning fields
	content  string  // all content text, tags included
	thinking string  // all text of the reasoning fields
	finish   string
	usage    *chunk
	done     bool
}

// readTranscript reads events until the body ends and sorts them out; err is why the body
// ended (io.EOF for a clean end).
func readTranscript(t *testing.T, r io.Reader) (transcript, error) {
	t.Helper()
	events, err := readEvents(r)
	tr := transcript{events: events}
	for _, ev := range events {
		switch {
		case ev == "data: [DONE]":
			tr.done = true
			continue
		case !strings.HasPrefix(ev, "data: "):
			continue
		}
		ch := decodeChunk(t, ev)
		if ch.Usage != nil {
			tr.usage = &ch
			continue
		}
		if len(ch.Choices) == 1 && ch.Choices[0].FinishReason != nil {
			tr.finish = *ch.Choices[0].FinishReason
			continue
		}
		field, text, ok := textOf(t, ch)
		if !ok {
			continue
		}
		p := piece{field: field, text: text, thinking: field != contentField}
		tr.pieces = append(tr.pieces, p)
		if p.thinking {
			tr.thinking += text
		} else {
			tr.content += text
		}
	}
	return tr, err
}

func TestThinkingIsAFewSentencesAboutTheQuestion(t *testing.T) {
	got := Thinking(sky)
	if n := len(strings.Fields(got)); n < 40 || n > 80 {
		t.Errorf("%d words, want 40 to 80: %q", n, got)
	}
	for _, want := range []string{"The user asks about “Why is the sky blue?”.", "First, recall", "Let me check"} {
		if !strings.Contains(got, want) {
			t.Errorf("thinking lacks %q: %q", want, got)
		}
	}
	if got != Thinking(append([]Message{{Role: "system", Content: "Be terse."}}, sky...)) {
		t.Error("the thinking depends on more than the last user message")
	}
	if empty := Thinking([]Message{{Role: "user", Content: " "}}); !strings.HasPrefix(empty, "The user sent an empty message.") {
		t.Errorf("thinking about an empty message: %q", empty)
	}
}

func TestThinkShapesOnTheWire(t *testing.T) {
	thought, answer := Thinking(sky), Reply(sky)
	tests := []struct {
		shape    ThinkShape
		field    string // of the thinking chunks
		content  string
		thinking string
	}{
		{ThinkReasoningContent, reasoningContentField, answer, thought},
		{ThinkReasoning, reasoningField, answer, thought},
		{ThinkTags, contentField, "<think>\n" + thought + "\n</think>\n\n" + answer, ""},
		{ThinkBare, contentField, thought + "\n</think>\n\n" + answer, ""},
		{ThinkSilent, "", answer, ""},
	}
	for _, tt := range tests {
		t.Run(string(tt.shape), func(t *testing.T) {
			s, c := start(t, Options{})
			s.Push(Fault{Think: tt.shape})
			resp := postChat(t, s, c, chatBody(t, true, true, sky...))
			tr, err := readTranscript(t, resp.Body)
			if err != io.EOF {
				t.Fatal(err)
			}
			if !strings.Contains(tr.events[0], `"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]`) ||
				tr.events[1] != ": keep-alive" || !strings.HasSuffix(tr.events[2], `"choices":[]}`) {
				t.Fatalf("opening events %q", tr.events[:3])
			}
			if tr.content != tt.content || tr.thinking != tt.thinking {
				t.Fatalf("content %q\nthinking %q\nwant content %q\nthinking %q", tr.content, tr.thinking, tt.content, tt.thinking)
			}
			// Thinking first, in chunks of its own field, word-sized, then the answer.
			thinkToks, answerToks := appendTokens(nil, thought), appendTokens(nil, answer)
			first := len(tr.pieces) - len(answerToks)
			for i, p := range tr.pieces {
				switch {
				case i >= first:
					if p.field != contentField || p.text != answerToks[i-first] {
						t.Fatalf("answer chunk %d: %+v, want %q", i-first, p, answerToks[i-first])
					}
				case p.field != tt.field:
					t.Fatalf("thinking chunk %d: field %s, want %s", i, p.field, tt.field)
				}
			}
			switch tt.shape {
			case ThinkReasoningContent, ThinkReasoning:
				if first != len(thinkToks) {
					t.Errorf("%d thinking chunks, want one per word piece (%d)", first, len(thinkToks))
				}
			case ThinkTags:
				// The tags and the newlines around them come as a tokenizer splits them.
				want := append(append([]string{"<think>", "\n"}, thinkToks...), "\n", "</think>", "\n\n")
				if got := texts(tr.pieces[:first]); strings.Join(got, "|") != strings.Join(want, "|") {
					t.Errorf("thinking chunks %q\nwant %q", got, want)
				}
			case ThinkBare:
				want := append(thinkToks, "\n", "</think>", "\n\n")
				if got := texts(tr.pieces[:first]); strings.Join(got, "|") != strings.Join(want, "|") {
					t.Errorf("thinking chunks %q\nwant %q", got, want)
				}
			case ThinkSilent:
				if first != 0 {
					t.Errorf("silent thinking sent %d chunks", first)
				}
			}
			if tr.finish != "stop" || !tr.done {
				t.Errorf("finish %q, [DONE] %v", tr.finish, tr.done)
			}
			// Usage counts the thinking in completion_tokens and apart, as OpenAI does,
			// sent or not.
			completion := tokensFor(tr.content, tr.thinking)
			if tt.shape == ThinkSilent {
				completion = tokensFor(tr.content, thought)
			}
			u := tr.usage.Usage
			if u.CompletionTokensDetails == nil || u.CompletionTokensDetails.ReasoningTokens != tokensFor(thought) ||
				u.CompletionTokens != completion || u.TotalTokens != u.PromptTokens+completion {
				t.Errorf("usage %s", tr.events[len(tr.events)-2])
			}
		})
	}
}

func texts(ps []piece) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.text
	}
	return out
}

func TestReplyWithoutThinkingReportsNoReasoningTokens(t *testing.T) {
	s, c := start(t, Options{})
	resp := postChat(t, s, c, chatBody(t, true, true, sky...))
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "completion_tokens_details") || strings.Contains(string(raw), "reasoning") {
		t.Fatalf("a plain reply mentions reasoning: %s", raw)
	}
}

// ThinkFor passes on the server clock, spread over the thinking chunks (or as one silence),
// before the first chunk of the answer. The test moves the clock only when the server waits,
// and reads what was sent before each move, so it sees when each event was sent.
func TestThinkForIsSpentBeforeTheAnswer(t *testing.T) {
	const thinkFor = 3 * time.Second
	const text = "Let me check: is it Rayleigh scattering? Yes."
	for _, shape := range ThinkShapes {
		t.Run(string(shape), func(t *testing.T) {
			clock := chattest.New(chattest.Start)
			s, c := start(t, Options{Clock: clock})
			s.Push(Fault{Think: shape, ThinkFor: thinkFor, ThinkText: text})
			resp := postChat(t, s, c, chatBody(t, true, false, sky...))
			tp := newTap(t, resp.Body)
			if ev, ok := tp.event(5 * time.Second); !ok || !strings.Contains(ev, `"role":"assistant"`) {
				t.Fatalf("first event %q", ev)
			}
			thinking := thinkPieces(shape, text, false)
			n := len(thinking) // the first n chunks of text are thinking, the rest answer
			want := append(thinking, answerPieces(appendTokens(nil, Reply(sky)))...)
			var (
				elapsed     time.Duration
				waits, seen int
			)
			see := func(ev string) {
				if shape == ThinkSilent && elapsed != thinkFor {
					t.Errorf("%q sent %v into a silence of %v", ev, elapsed, thinkFor)
				}
				if !strings.HasPrefix(ev, "data: {") {
					return
				}
				if field, text, ok := textOf(t, decodeChunk(t, ev)); ok {
					switch {
					case seen >= len(want) || field != want[seen].field || text != want[seen].text:
						t.Fatalf("chunk %d of text: %s %q, out of order", seen, field, text)
					case seen < n && (elapsed == 0 || elapsed > thinkFor):
						t.Errorf("thinking chunk %q sent at %v", text, elapsed)
					case seen >= n && elapsed != thinkFor:
						t.Errorf("answer chunk %q sent after %v of thinking, want %v", text, elapsed, thinkFor)
					}
					seen++
				}
			}
			deadline := time.After(10 * time.Second)
			for !tp.done {
				select {
				case b, ok := <-tp.in:
					tp.take(b, ok)
				case d := <-clock.Asked():
					// Everything sent before this wait is on its way: read it, then move on.
					for {
						ev, ok := tp.event(20 * time.Millisecond)
						if !ok {
							break
						}
						see(ev)
					}
					clock.Advance(d)
					elapsed += d
					waits++
					continue
				case <-deadline:
					t.Fatal("the stream neither ended nor waited")
				}
				for ev, ok := tp.next(); ok; ev, ok = tp.next() {
					see(ev)
				}
			}
			if elapsed != thinkFor || seen <= n {
				t.Fatalf("waited %v in all; %d chunks of text, %d of them thinking", elapsed, seen, n)
			}
			if seen != len(want) {
				t.Errorf("%d chunks of text, want %d", seen, len(want))
			}
			if waits != max(n, 1) { // a silence is one wait
				t.Errorf("%d waits, want %d", waits, max(n, 1))
			}
			for _, d := range clock.Waits() {
				if lo := thinkFor / time.Duration(max(n, 1)); d < lo || d > lo+1 {
					t.Errorf("waits %v are not spread evenly", clock.Waits())
					break
				}
			}
		})
	}
}

// StallAfter streams N chunks of text, thinking or answer, then nothing at all, the
// connection open, until the client goes away.
func TestStallAfterSendsNothingMore(t *testing.T) {
	for _, tt := range []struct {
		name  string
		fault Fault
		field string // of the last chunk before the silence
	}{
		{"answer", Fault{StallAfter: 5}, contentField},
		{"thinking", Fault{StallAfter: 3, Think: ThinkReasoningContent}, reasoningContentField},
		{"tags", Fault{StallAfter: 2, Think: ThinkTags}, contentField},
		{"beyond the end", Fault{StallAfter: maxCount, Think: ThinkReasoning}, contentField},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, c := start(t, Options{})
			s.Push(tt.fault)
			resp, cancel := postChatCancellable(t, s, c, chatBody(t, true, true, sky...))
			tp := newTap(t, resp.Body)
			want := min(tt.fault.StallAfter, len(thinkPieces(tt.fault.Think, Thinking(sky), false))+len(appendTokens(nil, Reply(sky))))
			var last string
			for n := 0; n < want; {
				ev, ok := tp.event(5 * time.Second)
				if !ok {
					t.Fatalf("%d chunks of text, then nothing; want %d", n, want)
				}
				if strings.Contains(ev, `"finish_reason":"`) || ev == "data: [DONE]" {
					t.Fatalf("the stream finished: %q", ev)
				}
				if !strings.HasPrefix(ev, "data: {") {
					continue
				}
				if field, _, ok := textOf(t, decodeChunk(t, ev)); ok {
					last = field
					n++
				}
			}
			if last != tt.field {
				t.Errorf("the last chunk before the silence has %s, want %s", last, tt.field)
			}
			if !tp.quiet(300 * time.Millisecond) {
				t.Fatalf("bytes after %d chunks: %q", want, tp.buf)
			}
			cancel()
			waitIdle(t, s)
		})
	}
}

func TestStallAfterWithoutStreamingSendsHalfTheBody(t *testing.T) {
	s, c := start(t, Options{})
	s.Push(Fault{StallAfter: 1})
	resp, cancel := postChatCancellable(t, s, c, chatBody(t, false, false, sky...))
	tp := newTap(t, resp.Body)
	var got []byte
	for !tp.quiet(300 * time.Millisecond) {
		got, tp.buf = append(got, tp.buf...), nil
	}
	if len(got) == 0 || int64(len(got)) >= resp.ContentLength || !strings.HasPrefix(string(got), `{"id":"chatcmpl-`) {
		t.Fatalf("got %d of %d bytes before the silence: %q", len(got), resp.ContentLength, got)
	}
	cancel()
	waitIdle(t, s)
}

// CutAfter counts thinking chunks too: the connection drops mid-thought.
func TestCutWhileThinking(t *testing.T) {
	for _, shape := range []ThinkShape{ThinkReasoningContent, ThinkReasoning, ThinkTags, ThinkBare} {
		t.Run(string(shape), func(t *testing.T) {
			s, c := start(t, Options{})
			s.Push(Fault{Think: shape, CutAfter: 4})
			resp := postChat(t, s, c, chatBody(t, true, true, sky...))
			tr, err := readTranscript(t, resp.Body)
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("stream ended with %v, want unexpected EOF", err)
			}
			want := thinkPieces(shape, Thinking(sky), false)[:4]
			if strings.Join(texts(tr.pieces), "|") != strings.Join(texts(want), "|") || tr.pieces[3].field != want[3].field {
				t.Fatalf("chunks %+v, want the first 4 of the thinking", tr.pieces)
			}
			if tr.finish != "" || tr.usage != nil || tr.done {
				t.Fatalf("a cut stream finished: %q", tr.events)
			}
		})
	}
}

func TestCutWhileThinkingThroughGoOpenAI(t *testing.T) {
	s, c := start(t, Options{})
	s.Push(Fault{Think: ThinkReasoningContent, CutAfter: 3})
	stream, err := openaiClient(s, c).CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
		Model: DefaultModel, Messages: openaiMessages(sky), Stream: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	var thinking strings.Builder
	for {
		resp, err := stream.Recv()
		if err != nil {
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("after %q: %v, want unexpected EOF", thinking.String(), err)
			}
			break
		}
		for _, ch := range resp.Choices {
			if ch.Delta.Content != "" {
				t.Fatalf("answer before the cut: %q", ch.Delta.Content)
			}
			thinking.WriteString(ch.Delta.ReasoningContent)
		}
	}
	if want := strings.Join(appendTokens(nil, Thinking(sky))[:3], ""); thinking.String() != want {
		t.Fatalf("thinking %q, want %q", thinking.String(), want)
	}
}

func TestFinishReasonAndShortReplies(t *testing.T) {
	thought, answer := Thinking(sky), appendTokens(nil, Reply(sky))
	tests := []struct {
		name     string
		fault    Fault
		content  string
		thinking string
		finish   string
	}{
		{"length after a short answer", Fault{Finish: "length", MaxAnswer: 5}, strings.Join(answer[:5], ""), "", "length"},
		{"content_filter", Fault{Finish: "content_filter"}, Reply(sky), "", "content_filter"},
		{"a short answer that stops", Fault{MaxAnswer: 2}, strings.Join(answer[:2], ""), "", "stop"},
		{"thinking only", Fault{Think: ThinkReasoningContent, ThinkOnly: true, Finish: "length"}, "", thought, "length"},
		// Stopped mid-thought, the tags never close.
		{"thinking only in tags", Fault{Think: ThinkTags, ThinkOnly: true, Finish: "length"}, "<think>\n" + thought, "", "length"},
		{"thinking only in silence", Fault{Think: ThinkSilent, ThinkOnly: true, Finish: "length"}, "", "", "length"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, c := start(t, Options{})
			s.Push(tt.fault)
			resp := postChat(t, s, c, chatBody(t, true, true, sky...))
			tr, err := readTranscript(t, resp.Body)
			if err != io.EOF {
				t.Fatal(err)
			}
			if tr.content != tt.content || tr.thinking != tt.thinking || tr.finish != tt.finish || !tr.done {
				t.Fatalf("content %q thinking %q finish %q done %v", tr.content, tr.thinking, tr.finish, tr.done)
			}
			u := tr.usage.Usage
			reasoning := 0
			if tt.fault.Think != "" {
				reasoning = tokensFor(thought)
				if u.CompletionTokensDetails == nil || u.CompletionTokensDetails.ReasoningTokens != reasoning {
					t.Errorf("usage %+v, want %d reasoning tokens", u, reasoning)
				}
			}
			if want := tokensFor(tt.content, tt.thinking); u.CompletionTokens != max(want, reasoning) {
				t.Errorf("completion tokens %d, want %d", u.CompletionTokens, max(want, reasoning))
			}
		})
	}
}

func TestLengthThroughGoOpenAI(t *testing.T) {
	s, c := start(t, Options{})
	s.Push(Fault{Think: ThinkReasoningContent, ThinkOnly: true, Finish: "length"})
	stream, err := openaiClient(s, c).CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
		Model: DefaultModel, Messages: openaiMessages(sky), Stream: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	var (
		content, thinking strings.Builder
		finish            openai.FinishReason
	)
	for _, resp := range recvAll(t, stream) {
		for _, ch := range resp.Choices {
			content.WriteString(ch.Delta.Content)
			thinking.WriteString(ch.Delta.ReasoningContent)
			if ch.FinishReason != "" {
				finish = ch.FinishReason
			}
		}
	}
	if content.Len() != 0 || thinking.String() != Thinking(sky) || finish != openai.FinishReasonLength {
		t.Fatalf("content %q, thinking %q, finish %q", content.String(), thinking.String(), finish)
	}
}

func TestNonStreamingThinking(t *testing.T) {
	thought, answer := Thinking(sky), Reply(sky)
	tests := []struct {
		fault                       Fault
		content, reasoningContent   string
		reasoning, finish, escaping string
	}{
		{Fault{Think: ThinkReasoningContent, ThinkFor: 2 * time.Second}, answer, thought, "", "stop", ""},
		{Fault{Think: ThinkReasoning, ThinkFor: 2 * time.Second}, answer, "", thought, "stop", ""},
		{Fault{Think: ThinkTags, ThinkFor: 2 * time.Second}, "<think>\n" + thought + "\n</think>\n\n" + answer, "", "", "stop", "<think>"},
		{Fault{Think: ThinkBare, ThinkFor: 2 * time.Second, ThinkOnly: true, Finish: "length"}, thought, "", "", "length", ""},
		{Fault{Think: ThinkSilent, ThinkFor: 2 * time.Second}, answer, "", "", "stop", ""},
	}
	for _, tt := range tests {
		t.Run(tt.fault.String(), func(t *testing.T) {
			clock := chattest.NewInstant(chattest.Start)
			s, c := start(t, Options{Clock: clock})
			s.Push(tt.fault)
			resp := postChat(t, s, c, chatBody(t, false, false, sky...))
			raw, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			var body struct {
				Choices []struct {
					Message struct {
						Content          string  `json:"content"`
						ReasoningContent *string `json:"reasoning_content"`
						Reasoning        *string `json:"reasoning"`
					} `json:"message"`
					FinishReason string `json:"finish_reason"`
				} `json:"choices"`
				Usage struct {
					CompletionTokens        int `json:"completion_tokens"`
					CompletionTokensDetails struct {
						ReasoningTokens int `json:"reasoning_tokens"`
					} `json:"completion_tokens_details"`
				} `json:"usage"`
			}
			if err := json.Unmarshal(raw, &body); err != nil || len(body.Choices) != 1 {
				t.Fatalf("%v: %s", err, raw)
			}
			m := body.Choices[0].Message
			deref := func(p *string) string {
				if p == nil {
					return ""
				}
				return *p
			}
			if m.Content != tt.content || deref(m.ReasoningContent) != tt.reasoningContent || deref(m.Reasoning) != tt.reasoning || body.Choices[0].FinishReason != tt.finish {
				t.Fatalf("reply %s", raw)
			}
			if (m.ReasoningContent != nil) != (tt.reasoningContent != "") || (m.Reasoning != nil) != (tt.reasoning != "") {
				t.Errorf("empty reasoning fields sent: %s", raw)
			}
			if tt.escaping != "" && !strings.Contains(string(raw), tt.escaping) {
				t.Errorf("%q is escaped: %s", tt.escaping, raw)
			}
			if body.Usage.CompletionTokensDetails.ReasoningTokens != tokensFor(thought) || body.Usage.CompletionTokens < tokensFor(thought) {
				t.Errorf("usage %+v", body.Usage)
			}
			if w := clock.Waits(); len(w) != 1 || w[0] != 2*time.Second {
				t.Errorf("waits %v, want the thinking time once", w)
			}
		})
	}
}

func TestPushPanicsOnAnUnknownShape(t *testing.T) {
	s, _ := start(t, Options{})
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), `"reasoning-content"`) {
			t.Fatalf("recovered %v", r)
		}
		if len(queued(s)) != 0 {
			t.Error("part of the faults were queued")
		}
	}()
	s.Push(Fault{Think: ThinkTags}, Fault{Think: "reasoning-content"})
}
