package demo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"
)

// keepAliveEvery is how many content chunks pass between two keep-alive comments, so clients
// meet comments mid-stream as they do with real servers.
const keepAliveEvery = 32

// Unpaced streams are flushed in batches so the server is never the bottleneck of a benchmark.
const (
	batchEvents = 64
	batchBytes  = 4096
)

// wait waits d on the server's clock. It reports false when ctx ends first.
func (s *Server) wait(ctx context.Context, d time.Duration) bool {
	select {
	case <-s.opts.Clock.After(d):
		return true
	case <-ctx.Done():
		return false
	}
}

// stall sends event-stream headers, then only keep-alive comments, one a second, until the
// client goes away.
func (s *Server) stall(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	rc := http.NewResponseController(w)
	for {
		if _, err := w.Write([]byte(": keep-alive\n\n")); err != nil {
			return
		}
		if rc.Flush() != nil || !s.wait(r.Context(), time.Second) {
			return
		}
	}
}

// reply answers a chat request normally, or cut short after cutAfter content chunks when
// cutAfter > 0. seq makes the completion id.
func (s *Server) reply(w http.ResponseWriter, r *http.Request, req chatRequest, seq, cutAfter int) {
	toks := s.tokens
	if toks == nil {
		toks = appendTokens(nil, Reply(req.Messages))
	}
	model := req.Model
	if model == "" {
		model = s.opts.Model
	}
	c := completion{
		id:      fmt.Sprintf("chatcmpl-parleydemo%06d", seq),
		created: s.opts.Clock.Now().Unix(),
		model:   model,
	}
	for _, m := range req.Messages {
		c.promptChars += utf8.RuneCountInString(m.Content)
	}
	if !req.Stream {
		replyWhole(w, c, toks, cutAfter)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	sw := newSSEWriter(w, c, s.opts.Pace > 0)
	sw.chunk(`"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]`)
	sw.comment()
	sw.chunk(`"choices":[]`)
	if cutAfter > 0 {
		cutAfter = min(cutAfter, len(toks))
	}
	for i, tok := range toks {
		if s.opts.Pace > 0 && !s.wait(r.Context(), s.opts.Pace) {
			return
		}
		sw.content(tok)
		c.completionChars += utf8.RuneCountInString(tok)
		if i+1 == cutAfter {
			sw.w.Flush()
			abort(w, false)
			return
		}
		if (i+1)%keepAliveEvery == 0 && i+1 < len(toks) {
			sw.comment()
		}
		if sw.err != nil {
			return
		}
	}
	sw.chunk(`"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]`)
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		p, q := c.usage()
		sw.chunk(fmt.Sprintf(`"choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}`, p, q, p+q))
	}
	sw.begin()
	sw.w.WriteString("[DONE]")
	sw.end()
	sw.flush()
}

// replyWhole answers a request that did not ask to stream with one chat.completion object.
// When cutAfter > 0 the connection is closed halfway through the body.
func replyWhole(w http.ResponseWriter, c completion, toks []string, cutAfter int) {
	var text bytes.Buffer
	for _, t := range toks {
		text.WriteString(t)
	}
	c.completionChars = utf8.RuneCount(text.Bytes())
	p, q := c.usage()
	type message struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	type choice struct {
		Index        int     `json:"index"`
		Message      message `json:"message"`
		FinishReason string  `json:"finish_reason"`
	}
	type usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	}
	body, err := json.Marshal(struct {
		ID      string   `json:"id"`
		Object  string   `json:"object"`
		Created int64    `json:"created"`
		Model   string   `json:"model"`
		Choices []choice `json:"choices"`
		Usage   usage    `json:"usage"`
	}{c.id, "chat.completion", c.created, c.model,
		[]choice{{Message: message{"assistant", text.String()}, FinishReason: "stop"}},
		usage{p, q, p + q}})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if cutAfter > 0 {
		w.Write(body[:len(body)/2])
		abort(w, false)
		return
	}
	w.Write(body)
}

// completion is what every chunk of one response repeats, and what its usage is counted from.
type completion struct {
	id                           string
	created                      int64
	model                        string
	promptChars, completionChars int
}

// usage estimates token counts as a quarter of the characters, rounded up.
func (c completion) usage() (prompt, completion int) {
	return (c.promptChars + 3) / 4, (c.completionChars + 3) / 4
}

// sseWriter writes the events of one response. It flushes after every event when the stream
// is paced, otherwise in batches. A write error sticks: nothing more is sent after it.
type sseWriter struct {
	w      *bufio.Writer
	rc     *http.ResponseController
	paced  bool
	events int    // written since the last flush
	head   string // `{"id":…,"model":…,` common to every chunk of the response
	err    error

	quoted bytes.Buffer // reused for each content chunk's JSON string
	enc    *json.Encoder
}

func newSSEWriter(w http.ResponseWriter, c completion, paced bool) *sseWriter {
	sw := &sseWriter{
		w:     bufio.NewWriterSize(w, 2*batchBytes),
		rc:    http.NewResponseController(w),
		paced: paced,
		head: fmt.Sprintf(`{"id":%s,"object":"chat.completion.chunk","created":%d,"model":%s,`,
			jsonString(c.id), c.created, jsonString(c.model)),
	}
	sw.enc = json.NewEncoder(&sw.quoted)
	sw.enc.SetEscapeHTML(false)
	return sw
}

// chunk writes a chat.completion.chunk event whose fields after the common ones are rest.
func (sw *sseWriter) chunk(rest string) {
	sw.begin()
	sw.w.WriteString(sw.head)
	sw.w.WriteString(rest)
	sw.w.WriteString("}")
	sw.end()
}

// content writes a chunk whose delta is text.
func (sw *sseWriter) content(text string) {
	sw.quoted.Reset()
	sw.enc.Encode(text) // a string always encodes
	sw.begin()
	sw.w.WriteString(sw.head)
	sw.w.WriteString(`"choices":[{"index":0,"delta":{"content":`)
	sw.w.Write(bytes.TrimSuffix(sw.quoted.Bytes(), []byte("\n")))
	sw.w.WriteString(`},"finish_reason":null}]}`)
	sw.end()
}

// comment writes an SSE comment, which clients must skip.
func (sw *sseWriter) comment() {
	sw.w.WriteString(": keep-alive")
	sw.end()
}

func (sw *sseWriter) begin() {
	sw.w.WriteString("data: ")
}

// end closes an event and flushes when it is time to. bufio.Writer keeps the first write
// error, so checking at each flush is enough.
func (sw *sseWriter) end() {
	sw.w.WriteString("\n\n")
	sw.events++
	if sw.paced || sw.events >= batchEvents || sw.w.Buffered() >= batchBytes {
		sw.flush()
	}
}

func (sw *sseWriter) flush() {
	if sw.err != nil {
		return
	}
	sw.events = 0
	if sw.err = sw.w.Flush(); sw.err == nil {
		sw.err = sw.rc.Flush()
	}
}

// jsonString encodes s as a JSON string, leaving <, > and & as they are, as API servers do.
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
