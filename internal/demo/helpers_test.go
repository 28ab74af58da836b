package demo

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// start runs a demo server for the test and an HTTP client of its own.
func start(t *testing.T, opts Options) (*Server, *http.Client) {
	t.Helper()
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s, &http.Client{Transport: tr}
}

// chatBody is a chat completion request body.
func chatBody(t *testing.T, stream, usage bool, msgs ...Message) string {
	t.Helper()
	req := map[string]any{"model": DefaultModel, "messages": msgs, "stream": stream}
	if usage {
		req["stream_options"] = map[string]bool{"include_usage": true}
	}
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func post(t *testing.T, ctx context.Context, c *http.Client, url, body string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer sk-test-key")
	return c.Do(req)
}

// postChat posts a chat completion request and fails the test on a transport error.
func postChat(t *testing.T, s *Server, c *http.Client, body string) *http.Response {
	t.Helper()
	resp, err := post(t, context.Background(), c, s.URL()+"/chat/completions", body)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// postChatCancellable is postChat with a request the test can cancel, as a client going away
// does; the request is cancelled at the end of the test in any case.
func postChatCancellable(t *testing.T, s *Server, c *http.Client, body string) (*http.Response, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	resp, err := post(t, ctx, c, s.URL()+"/chat/completions", body)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp, cancel
}

// readEvent reads one server-sent event: its lines up to the blank line that ends it.
func readEvent(br *bufio.Reader) (string, error) {
	var lines []string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if err == io.EOF && (line != "" || len(lines) > 0) {
				err = io.ErrUnexpectedEOF // a partial event is a cut stream
			}
			return "", err
		}
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			return strings.Join(lines, "\n"), nil
		}
		lines = append(lines, line)
	}
}

// readEvents reads events until the body ends, returning them and the error that ended the
// read (io.EOF for a clean end).
func readEvents(r io.Reader) ([]string, error) {
	br := bufio.NewReader(r)
	var events []string
	for {
		ev, err := readEvent(br)
		if err != nil {
			return events, err
		}
		events = append(events, ev)
	}
}

// chunk is a decoded chat.completion.chunk; pointers tell absent fields from empty ones.
type chunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index        int             `json:"index"`
		Delta        json.RawMessage `json:"delta"`
		FinishReason *string         `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens            int `json:"prompt_tokens"`
		CompletionTokens        int `json:"completion_tokens"`
		TotalTokens             int `json:"total_tokens"`
		CompletionTokensDetails *struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"usage"`
}

func decodeChunk(t *testing.T, event string) chunk {
	t.Helper()
	payload, ok := strings.CutPrefix(event, "data: ")
	if !ok || strings.Contains(payload, "\n") {
		t.Fatalf("event %q is not one data line", event)
	}
	var c chunk
	if err := json.Unmarshal([]byte(payload), &c); err != nil {
		t.Fatalf("event %q: %v", event, err)
	}
	return c
}

// contentOf returns the content of a chunk that is a content delta.
func contentOf(t *testing.T, c chunk) (string, bool) {
	t.Helper()
	if len(c.Choices) != 1 || c.Choices[0].FinishReason != nil {
		return "", false
	}
	var d map[string]string
	if err := json.Unmarshal(c.Choices[0].Delta, &d); err != nil {
		t.Fatal(err)
	}
	text, ok := d["content"]
	if !ok || len(d) != 1 {
		return "", false
	}
	return text, true
}

// tap reads a response body on a goroutine, so a test can wait for what arrives with a time
// limit and tell a silent stream from a slow one.
type tap struct {
	in   chan []byte // what each read returned; closed when the body ends
	buf  []byte      // received and not yet taken as events
	done bool        // in is closed
}

func newTap(t *testing.T, body io.Reader) *tap {
	tp := &tap{in: make(chan []byte)}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) }) // runs before the body is closed, which ends the read
	go func() {
		defer close(tp.in)
		for {
			b := make([]byte, 4096)
			n, err := body.Read(b)
			if n > 0 {
				select {
				case tp.in <- b[:n]:
				case <-stop:
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return tp
}

// take adds what a receive from in returned.
func (tp *tap) take(b []byte, ok bool) {
	if !ok {
		tp.done = true
		return
	}
	tp.buf = append(tp.buf, b...)
}

// next returns the next whole event already received.
func (tp *tap) next() (string, bool) {
	i := strings.Index(string(tp.buf), "\n\n")
	if i < 0 {
		return "", false
	}
	ev := string(tp.buf[:i])
	tp.buf = tp.buf[i+2:]
	return ev, true
}

// event returns the next whole event, waiting at most d for it; false when none came in time
// or the body ended.
func (tp *tap) event(d time.Duration) (string, bool) {
	timeout := time.After(d)
	for {
		if ev, ok := tp.next(); ok {
			return ev, true
		}
		if tp.done {
			return "", false
		}
		select {
		case b, ok := <-tp.in:
			tp.take(b, ok)
		case <-timeout:
			return "", false
		}
	}
}

// quiet reports whether nothing at all is left over or arrives within d, the body still open.
func (tp *tap) quiet(d time.Duration) bool {
	if len(tp.buf) > 0 || tp.done {
		return false
	}
	select {
	case b, ok := <-tp.in:
		tp.take(b, ok)
		return false
	case <-time.After(d):
		return true
	}
}

// apiError is the error object of an OpenAI-shaped error response, as a client reads it.
type apiError struct {
	Message, Type string
	Code          *string
}

// decodeError reads an OpenAI-shaped error response body.
func decodeError(t *testing.T, body []byte) apiError {
	t.Helper()
	var e struct{ Error apiError }
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("%v: %q", err, body)
	}
	return e.Error
}
