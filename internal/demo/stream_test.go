package demo

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"parley/internal/chat/chattest"

	openai "github.com/sashabaranov/go-openai"
)

var conversation = []Message{
	{Role: "system", Content: "You are terse."},
	{Role: "user", Content: "hello"},
	{Role: "assistant", Content: "Hi."},
	{Role: "user", Content: "How do retries work in parley?"},
}

// tokensFor estimates tokens as the demo documents it: a quarter of the characters, rounded up.
func tokensFor(texts ...string) int {
	n := 0
	for _, s := range texts {
		n += utf8.RuneCountInString(s)
	}
	return (n + 3) / 4
}

func TestStreamWireFormat(t *testing.T) {
	s, c := start(t, Options{})
	resp := postChat(t, s, c, chatBody(t, true, true, conversation...))
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if got := resp.Header.Get("Content-Type"); got != "text/event-stream" {
		t.Errorf("Content-Type %q", got)
	}
	if got := resp.Header.Get("Cache-Control"); got != "no-cache" {
		t.Errorf("Cache-Control %q", got)
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(raw), "\n\ndata: [DONE]\n\n") {
		t.Fatalf("stream does not end with [DONE]: %q", raw[max(0, len(raw)-80):])
	}
	events := strings.Split(strings.TrimSuffix(string(raw), "\n\n"), "\n\n")

	want := Reply(conversation)
	var (
		text                    strings.Builder
		contentChunks, comments int
		emptyChoices, finishes  int
		sawUsage, sawDone       bool
		id                      string
	)
	for i, ev := range events {
		if sawDone {
			t.Fatalf("event after [DONE]: %q", ev)
		}
		switch {
		case ev == ": keep-alive":
			comments++
			continue
		case ev == "data: [DONE]":
			sawDone = true
			continue
		}
		ch := decodeChunk(t, ev)
		if ch.Object != "chat.completion.chunk" || ch.Model != DefaultModel || !strings.HasPrefix(ch.ID, "chatcmpl-") || ch.Created == 0 {
			t.Fatalf("chunk header wrong: %q", ev)
		}
		if id == "" {
			id = ch.ID
		} else if ch.ID != id {
			t.Fatalf("chunk id changed from %q to %q", id, ch.ID)
		}
		if i == 0 {
			if !strings.Contains(ev, `"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]`) {
				t.Fatalf("first chunk is not role-only: %q", ev)
			}
			continue
		}
		if sawUsage {
			t.Fatalf("chunk after the usage chunk: %q", ev)
		}
		if ch.Usage != nil {
			if len(ch.Choices) != 0 || finishes != 1 {
				t.Fatalf("usage chunk has choices or comes before the finish: %q", ev)
			}
			sawUsage = true
			p, q := tokensFor(conversation[0].Content, conversation[1].Content, conversation[2].Content, conversation[3].Content), tokensFor(want)
			if ch.Usage.PromptTokens != p || ch.Usage.CompletionTokens != q || ch.Usage.TotalTokens != p+q {
				t.Errorf("usage %+v, want prompt %d completion %d", *ch.Usage, p, q)
			}
			continue
		}
		if len(ch.Choices) == 0 {
			emptyChoices++
			continue
		}
		if fr := ch.Choices[0].FinishReason; fr != nil {
			if *fr != "stop" || string(ch.Choices[0].Delta) != "{}" {
				t.Fatalf("finish chunk %q", ev)
			}
			finishes++
			continue
		}
		if finishes > 0 {
			t.Fatalf("content after the finish chunk: %q", ev)
		}
		content, ok := contentOf(t, ch)
		if !ok || content == "" {
			t.Fatalf("not a content delta: %q", ev)
		}
		contentChunks++
		text.WriteString(content)
	}
	if text.String() != want {
		t.Errorf("streamed text\n%q\nwant\n%q", text.String(), want)
	}
	if n := len(appendTokens(nil, want)); contentChunks != n || n < 50 {
		t.Errorf("%d content chunks, want one per token (%d)", contentChunks, n)
	}
	if comments < 1 || emptyChoices != 1 || finishes != 1 || !sawUsage || !sawDone {
		t.Errorf("comments %d, empty-choices chunks %d, finishes %d, usage %v, done %v", comments, emptyChoices, finishes, sawUsage, sawDone)
	}
}

func TestStreamWithoutUsage(t *testing.T) {
	s, c := start(t, Options{})
	resp := postChat(t, s, c, chatBody(t, true, false, Message{Role: "user", Content: "hi"}))
	events, err := readEvents(resp.Body)
	if err != io.EOF {
		t.Fatal(err)
	}
	for _, ev := range events {
		if strings.Contains(ev, `"usage"`) {
			t.Fatalf("usage sent without include_usage: %q", ev)
		}
	}
	if events[len(events)-1] != "data: [DONE]" {
		t.Fatalf("last event %q", events[len(events)-1])
	}
}

func openaiClient(s *Server, c *http.Client) *openai.Client {
	cfg := openai.DefaultConfig("any-key")
	cfg.BaseURL = s.URL()
	cfg.HTTPClient = c
	return openai.NewClientWithConfig(cfg)
}

func openaiMessages(msgs []Message) []openai.ChatCompletionMessage {
	out := make([]openai.ChatCompletionMessage, len(msgs))
	for i, m := range msgs {
		out[i] = openai.ChatCompletionMessage{Role: m.Role, Content: m.Content}
	}
	return out
}

// recvAll receives a go-openai stream to its end, which must come without an error.
func recvAll(t *testing.T, stream *openai.ChatCompletionStream) []openai.ChatCompletionStreamResponse {
	t.Helper()
	var all []openai.ChatCompletionStreamResponse
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return all
		}
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, resp)
	}
}

func TestStreamThroughGoOpenAI(t *testing.T) {
	s, c := start(t, Options{})
	stream, err := openaiClient(s, c).CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
		Model:         DefaultModel,
		Messages:      openaiMessages(conversation),
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	var (
		text   strings.Builder
		finish openai.FinishReason
		usage  *openai.Usage
	)
	for _, resp := range recvAll(t, stream) {
		for _, ch := range resp.Choices {
			text.WriteString(ch.Delta.Content)
			if ch.FinishReason != "" {
				finish = ch.FinishReason
			}
		}
		if resp.Usage != nil {
			usage = resp.Usage
		}
	}
	if want := Reply(conversation); text.String() != want {
		t.Errorf("text %q, want %q", text.String(), want)
	}
	if finish != openai.FinishReasonStop {
		t.Errorf("finish_reason %q", finish)
	}
	if usage == nil || usage.CompletionTokens != tokensFor(Reply(conversation)) || usage.TotalTokens != usage.PromptTokens+usage.CompletionTokens {
		t.Errorf("usage %+v", usage)
	}
}

func TestNonStreamingReply(t *testing.T) {
	s, c := start(t, Options{})
	resp, err := openaiClient(s, c).CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model:    DefaultModel,
		Messages: openaiMessages(conversation),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 1 || resp.Choices[0].Message.Content != Reply(conversation) || resp.Choices[0].FinishReason != openai.FinishReasonStop {
		t.Fatalf("reply %+v", resp.Choices)
	}
	if resp.Object != "chat.completion" || resp.Usage.CompletionTokens != tokensFor(Reply(conversation)) {
		t.Errorf("object %q usage %+v", resp.Object, resp.Usage)
	}
}

// With a pace, each content chunk waits on the clock and is flushed on its own.
func TestPacedChunksAreFlushedOneByOne(t *testing.T) {
	const pace = 25 * time.Millisecond
	clock := chattest.New(chattest.Start)
	s, c := start(t, Options{Pace: pace, Clock: clock, Tokens: 4})
	resp := postChat(t, s, c, chatBody(t, true, false, Message{Role: "user", Content: "hi"}))
	br := bufio.NewReader(resp.Body)
	for range 3 { // role chunk, keep-alive, empty choices: sent before any wait
		if _, err := readEvent(br); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 4 {
		d := clock.NextWait(t)
		if d != pace {
			t.Fatalf("chunk %d waited %v, want %v", i, d, pace)
		}
		clock.Advance(d)
		ev, err := readEvent(br)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := contentOf(t, decodeChunk(t, ev)); !ok {
			t.Fatalf("chunk %d: %q is not content", i, ev)
		}
	}
	rest, err := readEvents(br)
	if err != io.EOF || len(rest) != 2 || rest[1] != "data: [DONE]" {
		t.Fatalf("after the content: %q, %v", rest, err)
	}
}

func TestTokensStreamsExactlyNChunks(t *testing.T) {
	const n = 3000
	texts := make([]string, 2)
	for i := range texts {
		s, c := start(t, Options{Tokens: n})
		// The question does not matter in this mode.
		resp := postChat(t, s, c, chatBody(t, true, true, Message{Role: "user", Content: strings.Repeat("q", i+1)}))
		events, err := readEvents(resp.Body)
		if err != io.EOF {
			t.Fatal(err)
		}
		var text strings.Builder
		chunks := 0
		for _, ev := range events {
			if !strings.HasPrefix(ev, "data: {") {
				continue
			}
			if content, ok := contentOf(t, decodeChunk(t, ev)); ok {
				chunks++
				text.WriteString(content)
			}
		}
		if chunks != n {
			t.Fatalf("%d content chunks, want %d", chunks, n)
		}
		texts[i] = text.String()
	}
	if texts[0] != texts[1] {
		t.Error("generated replies differ between runs")
	}
	if texts[0] != Generated(n, false) {
		t.Error("the streamed reply is not Generated's")
	}
	if !strings.HasPrefix(texts[0], "## 1. ") {
		t.Errorf("generated reply starts %q", texts[0][:20])
	}
}

// A long generated reply holds what long real replies hold; with OpenCode it runs on inside
// one code block to the end.
func TestSyntheticRepliesAreRealistic(t *testing.T) {
	text := strings.Join(syntheticTokens(40_000, false), "")
	for _, md := range []string{"\n## ", "\n### ", "\n- **", "\n  - ", "\n    - ", "\n1. ", "| --- |",
		"\n```go\n", "\n```python\n", "\n```rust\n", "\n```sql\n", "\n> ", "](https://example.com/", " `", "**", " _"} {
		if !strings.Contains(text, md) {
			t.Errorf("generated markdown has no %q", md)
		}
	}
	code := strings.Join(syntheticTokens(20_000, true), "")
	open := strings.Index(code, "```go\n")
	if open < 0 || open > 2000 || strings.Count(code, "```") != 1 || strings.Count(code, "\nfunc ") < 100 {
		t.Errorf("open code reply: fence at %d, %d fences, %d funcs", open, strings.Count(code, "```"), strings.Count(code, "\nfunc "))
	}
}

func TestSyntheticTokensAreAPrefix(t *testing.T) {
	long := syntheticTokens(5000, false)
	short := syntheticTokens(1234, false)
	if len(long) != 5000 || len(short) != 1234 {
		t.Fatalf("lengths %d, %d", len(long), len(short))
	}
	for i := range short {
		if short[i] != long[i] {
			t.Fatalf("token %d differs: %q vs %q", i, short[i], long[i])
		}
	}
}

func TestModels(t *testing.T) {
	for _, model := range []string{"", "house-model"} {
		s, c := start(t, Options{Model: model})
		list, err := openaiClient(s, c).ListModels(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want := model
		if want == "" {
			want = DefaultModel
		}
		if len(list.Models) != 1 || list.Models[0].ID != want {
			t.Errorf("models %+v, want %q", list.Models, want)
		}
	}
	s, c := start(t, Options{Model: "a", MoreModels: []string{"b", "c"}})
	list, err := openaiClient(s, c).ListModels(context.Background())
	if err != nil || len(list.Models) != 3 || list.Models[2].ID != "c" {
		t.Errorf("several models: %+v, %v", list.Models, err)
	}
}

func TestBadJSONIsABadRequest(t *testing.T) {
	s, c := start(t, Options{})
	resp := postChat(t, s, c, `{"messages": [`)
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if e := decodeError(t, body); resp.StatusCode != 400 || e.Type != "invalid_request_error" {
		t.Fatalf("status %d, error type %q", resp.StatusCode, e.Type)
	}
	if got := s.Received(); len(got) != 1 || got[0].Messages != nil || string(got[0].Body) != `{"messages": [` {
		t.Fatalf("received %+v", got)
	}
}

func TestStartRejectsNonLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0", "nonsense"} {
		if s, err := Start(Options{Addr: addr}); err == nil {
			s.Close()
			t.Errorf("Start(%q) succeeded", addr)
		}
	}
	s, err := Start(Options{Addr: "localhost:0"})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

func BenchmarkStream100kTokens(b *testing.B) {
	s, err := Start(Options{Tokens: 100_000})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	body := `{"model":"parley-demo","stream":true,"messages":[{"role":"user","content":"go"}]}`
	for b.Loop() {
		resp, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(n)
	}
}
