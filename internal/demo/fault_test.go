package demo

import (
	"context"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"parley/internal/chat/chattest"

	openai "github.com/sashabaranov/go-openai"
)

var hello = []Message{{Role: "user", Content: "hello"}}

// waitIdle waits until no handler of s is running.
func waitIdle(t *testing.T, s *Server) {
	t.Helper()
	chattest.WaitFor(t, "no handler running", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.active == 0
	})
}

func TestNamedFaults(t *testing.T) {
	tests := []struct {
		name    string
		fault   Fault
		status  int
		code    string
		typ     string
		headers map[string]string
		message string
	}{
		{"overloaded", Overloaded(), 503, "overloaded", "server_error", nil, "overloaded"},
		{"rate limited 20.5s", RateLimited(20500 * time.Millisecond), 429, "rate_limit_exceeded", "requests",
			map[string]string{"Retry-After": "21", "Retry-After-Ms": "20500", "X-Ratelimit-Reset-Requests": "20.5s"},
			"Please try again in 20.5s."},
		{"rate limited 50m", RateLimited(50 * time.Minute), 429, "rate_limit_exceeded", "requests",
			map[string]string{"Retry-After": "3000", "Retry-After-Ms": "3000000", "X-Ratelimit-Reset-Requests": "50m0s"},
			"Please try again in 50m0s."},
		{"quota", Quota(), 429, "insufficient_quota", "insufficient_quota", nil, "exceeded your current quota"},
		{"bad key", BadKey(), 401, "invalid_api_key", "invalid_request_error", nil, "You didn't provide an API key"},
		{"context overflow", ContextOverflow(), 400, "context_length_exceeded", "invalid_request_error", nil,
			"maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, c := start(t, Options{})
			s.Push(tt.fault)
			resp := postChat(t, s, c, chatBody(t, true, true, hello...))
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status || string(body) != tt.fault.Body {
				t.Fatalf("got %d %q", resp.StatusCode, body)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			for k, v := range tt.headers {
				if got := resp.Header.Get(k); got != v {
					t.Errorf("%s: %q, want %q", k, got, v)
				}
			}
			if e := decodeError(t, body); e.Code == nil || *e.Code != tt.code || e.Type != tt.typ || !strings.Contains(e.Message, tt.message) {
				t.Errorf("error %+v", e)
			}
		})
	}
}

func TestStatusFaultThroughGoOpenAI(t *testing.T) {
	s, c := start(t, Options{})
	s.Push(Overloaded())
	_, err := openaiClient(s, c).CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
		Model: DefaultModel, Messages: openaiMessages(hello), Stream: true,
	})
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 503 || apiErr.Code != "overloaded" {
		t.Fatalf("error %#v", err)
	}
}

// A fault's status, headers and body go out as they are: no made-up Content-Type, and a
// copied Content-Length that does not fit the body is replaced.
func TestCustomStatusFaultIsSentAsIs(t *testing.T) {
	s, c := start(t, Options{})
	body := "[{\n  \"error\": {\"code\": 429, \"status\": \"RESOURCE_EXHAUSTED\"}}]"
	s.Push(Fault{Status: 429, Header: map[string]string{"x-should-retry": "false", "content-length": "606"}, Body: body})
	resp := postChat(t, s, c, chatBody(t, false, false, hello...))
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 429 || string(got) != body || resp.ContentLength != int64(len(body)) {
		t.Fatalf("got %d %q (length %d)", resp.StatusCode, got, resp.ContentLength)
	}
	if resp.Header.Get("X-Should-Retry") != "false" {
		t.Errorf("headers %v", resp.Header)
	}
	if _, ok := resp.Header["Content-Type"]; ok {
		t.Errorf("Content-Type %q was added", resp.Header.Get("Content-Type"))
	}
}

func TestStreamFaultSendsExactBytes(t *testing.T) {
	s, c := start(t, Options{})
	raw := "error: {\"code\":500,\"message\":\"boom\"}\n\ndata: [DONE]\n\n"
	s.Push(Fault{Stream: raw})
	resp := postChat(t, s, c, chatBody(t, true, false, hello...))
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || string(got) != raw || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("got %d %q %v", resp.StatusCode, got, resp.Header)
	}
}

func TestErrorEventThroughGoOpenAI(t *testing.T) {
	s, c := start(t, Options{})
	s.Push(ErrorEvent())
	stream, err := openaiClient(s, c).CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
		Model: DefaultModel, Messages: openaiMessages(hello), Stream: true,
	})
	if err != nil {
		t.Fatal(err) // the error is inside a 200 stream
	}
	defer stream.Close()
	_, err = stream.Recv()
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.Type != "server_error" {
		t.Fatalf("Recv error %#v", err)
	}
}

func TestCutAfterDropsTheConnection(t *testing.T) {
	for _, tt := range []struct {
		cut, want int
	}{{5, 5}, {1_000_000, len(appendTokens(nil, Reply(hello)))}} {
		s, c := start(t, Options{})
		s.Push(Fault{CutAfter: tt.cut})
		resp := postChat(t, s, c, chatBody(t, true, true, hello...))
		events, err := readEvents(resp.Body)
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("cut %d: stream ended with %v, want unexpected EOF", tt.cut, err)
		}
		var text strings.Builder
		chunks := 0
		for _, ev := range events {
			if ev == "data: [DONE]" || strings.Contains(ev, `"finish_reason":"stop"`) {
				t.Fatalf("cut %d: stream finished: %q", tt.cut, ev)
			}
			if strings.HasPrefix(ev, "data: ") {
				if content, ok := contentOf(t, decodeChunk(t, ev)); ok {
					chunks++
					text.WriteString(content)
				}
			}
		}
		if chunks != tt.want || !strings.HasPrefix(Reply(hello), text.String()) {
			t.Fatalf("cut %d: %d chunks (%q), want %d", tt.cut, chunks, text.String(), tt.want)
		}
	}
}

func TestCutAfterThroughGoOpenAI(t *testing.T) {
	s, c := start(t, Options{})
	s.Push(Fault{CutAfter: 3}, Fault{CutAfter: 3})
	stream, err := openaiClient(s, c).CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
		Model: DefaultModel, Messages: openaiMessages(hello), Stream: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	deltas := 0
	for {
		resp, err := stream.Recv()
		if err != nil {
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("after %d deltas: %v, want unexpected EOF", deltas, err)
			}
			break
		}
		if len(resp.Choices) > 0 && resp.Choices[0].Delta.Content != "" {
			deltas++
		}
	}
	if deltas != 3 {
		t.Fatalf("%d deltas before the cut", deltas)
	}
	// Without streaming, the body breaks off halfway.
	if _, err := openaiClient(s, c).CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model: DefaultModel, Messages: openaiMessages(hello),
	}); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("non-streaming cut: %v", err)
	}
}

func TestResetBeforeHeaders(t *testing.T) {
	s, c := start(t, Options{})
	s.Push(Fault{Reset: true})
	resp, err := post(t, context.Background(), c, s.URL()+"/chat/completions", chatBody(t, true, false, hello...))
	if err == nil {
		resp.Body.Close()
		t.Fatalf("got a response: %d", resp.StatusCode)
	}
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("error %v, want connection reset", err)
	}
	if s.Requests() != 1 {
		t.Errorf("Requests() = %d", s.Requests())
	}
	if resp := postChat(t, s, c, chatBody(t, true, false, hello...)); resp.StatusCode != 200 {
		t.Errorf("next request: %d", resp.StatusCode)
	}
}

func TestStallSendsKeepAlivesUntilCancelled(t *testing.T) {
	clock := chattest.New(chattest.Start)
	s, c := start(t, Options{Clock: clock})
	s.Push(Fault{Stall: true})
	resp, cancel := postChatCancellable(t, s, c, chatBody(t, true, false, hello...))
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %v", resp.StatusCode, resp.Header)
	}
	buf := make([]byte, len(": keep-alive\n\n"))
	for i := range 3 {
		if _, err := io.ReadFull(resp.Body, buf); err != nil || string(buf) != ": keep-alive\n\n" {
			t.Fatalf("read %d: %q, %v", i, buf, err)
		}
		d := clock.NextWait(t)
		if d != time.Second {
			t.Fatalf("stall waits %v between comments", d)
		}
		if i < 2 {
			clock.Advance(d)
		}
	}
	cancel()
	waitIdle(t, s)
}

func TestDelayHoldsTheResponse(t *testing.T) {
	clock := chattest.New(chattest.Start)
	s, c := start(t, Options{Clock: clock})
	s.Push(Fault{Delay: 5 * time.Second})
	done := make(chan *http.Response, 1)
	go func() {
		resp, err := post(t, context.Background(), c, s.URL()+"/chat/completions", chatBody(t, false, false, hello...))
		if err != nil {
			t.Error(err)
		}
		done <- resp
	}()
	d := clock.NextWait(t)
	if d != 5*time.Second {
		t.Fatalf("delay waited %v", d)
	}
	select {
	case <-done:
		t.Fatal("response sent before the delay ended")
	case <-time.After(20 * time.Millisecond):
	}
	clock.Advance(d)
	resp := <-done
	if resp == nil {
		t.FailNow()
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
}

func TestDelayEndsWhenTheClientGoesAway(t *testing.T) {
	clock := chattest.New(chattest.Start)
	s, c := start(t, Options{Clock: clock})
	s.Push(Fault{Delay: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		resp, err := post(t, ctx, c, s.URL()+"/chat/completions", chatBody(t, true, false, hello...))
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	clock.NextWait(t) // the delay has begun; it is never released
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("client error %v", err)
	}
	waitIdle(t, s)
}

func TestCloseEndsOpenResponses(t *testing.T) {
	s, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	s.Push(Fault{Stall: true})
	resp, err := post(t, context.Background(), &http.Client{Transport: tr}, s.URL()+"/chat/completions", "{}")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 4)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.active != 0 {
		t.Fatalf("Close returned with %d handlers running", s.active)
	}
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Fatal("the stalled stream ended cleanly after Close")
	}
}

func TestQueueIsConsumedInOrder(t *testing.T) {
	s, c := start(t, Options{})
	s.Push(Overloaded(), Quota())
	s.Push(BadKey())
	for i, want := range []int{503, 429, 401, 200, 200} {
		resp := postChat(t, s, c, chatBody(t, false, false, hello...))
		if resp.StatusCode != want {
			t.Fatalf("request %d: %d, want %d", i, resp.StatusCode, want)
		}
	}
	s.Push(BadKey(), BadKey())
	s.Reset()
	if resp := postChat(t, s, c, chatBody(t, false, false, hello...)); resp.StatusCode != 200 {
		t.Fatalf("after Reset: %d", resp.StatusCode)
	}
	if s.Requests() != 6 {
		t.Fatalf("Requests() = %d", s.Requests())
	}
}

func TestReceivedRecordsEveryRequest(t *testing.T) {
	clock := chattest.New(chattest.Start)
	s, c := start(t, Options{Clock: clock})
	s.Push(Overloaded())
	bodies := []string{chatBody(t, true, false, hello...), chatBody(t, false, false, conversation...)}
	for _, b := range bodies {
		postChat(t, s, c, b)
	}
	got := s.Received()
	if len(got) != 2 || s.Requests() != 2 {
		t.Fatalf("received %d, Requests() %d", len(got), s.Requests())
	}
	for i, want := range [][]Message{hello, conversation} {
		r := got[i]
		if string(r.Body) != bodies[i] || !r.Time.Equal(clock.Now()) || r.Header.Get("Authorization") != "Bearer sk-test-key" {
			t.Errorf("request %d: %+v", i, r)
		}
		if len(r.Messages) != len(want) {
			t.Fatalf("request %d: messages %+v", i, r.Messages)
		}
		for j := range want {
			if !reflect.DeepEqual(r.Messages[j], want[j]) {
				t.Errorf("request %d message %d: %+v, want %+v", i, j, r.Messages[j], want[j])
			}
		}
	}
	// Received is a copy.
	got[0].Messages = nil
	if s.Received()[0].Messages == nil {
		t.Error("Received shares its slice with the server")
	}
}
