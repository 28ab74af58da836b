package demo

import (
	"bufio"
	"bytes"
	"cmp"
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

// Events are flushed in batches so the server is never the bottleneck of a benchmark, and
// before every wait so the client has them while it lasts.
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

// reply answers a chat request, thinking first, shortened, finished or broken off as f says.
// seq makes the completion id.
func (s *Server) reply(w http.ResponseWriter, r *http.Request, req chatRequest, seq int, f Fault) {
	answer := s.tokens
	if answer == nil {
		answer = appendTokens(nil, Reply(req.Messages))
	}
	switch {
	case f.ThinkOnly:
		answer = nil
	case f.MaxAnswer > 0:
		answer = answer[:min(f.MaxAnswer, len(answer))]
	}
	var thought string
	if f.Think != "" {
		thought = f.ThinkText
		if thought == "" {
			thought = Thinking(req.Messages)
		}
	}
	think := thinkPieces(f.Think, thought, f.ThinkOnly)
	pieces := append(think, answerPieces(answer)...)
	model := req.Model
	if s.opts.ServedModel != "" {
		model = s.opts.ServedModel
	}
	if model == "" {
		model = s.opts.Model
	}
	c := completion{
		id:             fmt.Sprintf("chatcmpl-parleydemo%06d", seq),
		created:        s.opts.Clock.Now().Unix(),
		model:          model,
		reasoningChars: utf8.RuneCountInString(thought),
	}
	for _, m := range req.Messages {
		c.promptChars += utf8.RuneCountInString(m.Content)
	}
	for _, p := range pieces {
		c.completionChars += utf8.RuneCountInString(p.text)
	}
	if f.Think == ThinkSilent {
		c.completionChars += c.reasoningChars // thought but never sent, and still paid for
	}
	if len(f.Calls) > 0 {
		s.replyCalls(w, r, req, seq, c, f)
		return
	}
	finish := cmp.Or(f.Finish, "stop")
	if !req.Stream {
		if f.Think != "" && f.ThinkFor > 0 && !s.wait(r.Context(), f.ThinkFor) {
			return
		}
		replyWhole(w, r, c, pieces, finish, f)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	sw := newSSEWriter(w, c)
	// pause waits d on the server clock, first sending what is written so the client has it.
	pause := func(d time.Duration) bool {
		if d <= 0 {
			return true
		}
		sw.flush()
		return sw.err == nil && s.wait(r.Context(), d)
	}
	// breakOff ends the response early as f says: a stall keeps the connection open and
	// silent, a cut drops it.
	breakOff := func() {
		if f.StallAfter > 0 {
			sw.flush()
			<-r.Context().Done()
			return
		}
		sw.w.Flush()
		abort(w, false)
	}
	limit := f.StallAfter
	if limit <= 0 {
		limit = f.CutAfter
	}
	sw.chunk(`"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]`)
	if f.Think == ThinkSilent && !pause(f.ThinkFor) {
		return
	}
	sw.comment()
	sw.chunk(`"choices":[]`)
	for i, p := range pieces {
		d := s.opts.Pace
		if p.thinking && f.ThinkFor > 0 {
			d = spread(f.ThinkFor, len(think), i) // thinking comes first, so i counts it
		}
		if !pause(d) {
			return
		}
		sw.delta(p.field, p.text)
		if limit > 0 && i+1 == min(limit, len(pieces)) {
			breakOff()
			return
		}
		if (i+1)%keepAliveEvery == 0 && i+1 < len(pieces) {
			sw.comment()
		}
		if sw.err != nil {
			return
		}
	}
	if limit > 0 { // a reply with no text breaks off where its text would have been
		breakOff()
		return
	}
	sw.chunk(`"choices":[{"index":0,"delta":{},"finish_reason":` + string(jsonString(finish)) + `}]`)
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		p, q := c.usage()
		u := fmt.Sprintf(`"choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d`, p, q, p+q)
		if c.reasoningChars > 0 {
			u += fmt.Sprintf(`,"completion_tokens_details":{"reasoning_tokens":%d}`, c.reasoningTokens())
		}
		sw.chunk(u + "}")
	}
	sw.begin()
	sw.w.WriteString("[DONE]")
	sw.end()
	sw.flush()
}

// replyWhole answers a request that did not ask to stream with one chat.completion object.
// When f breaks the reply off, the body stops halfway: the connection is dropped for a cut
// and held open, silent, for a stall.
func replyWhole(w http.ResponseWriter, r *http.Request, c completion, pieces []piece, finish string, f Fault) {
	type message struct {
		Role             string `json:"role"`
		Content          string `json:"content"`
		ReasoningContent string `json:"reasoning_content,omitempty"`
		Reasoning        string `json:"reasoning,omitempty"`
	}
	msg := message{Role: "assistant"}
	for _, p := range pieces {
		switch p.field {
		case reasoningContentField:
			msg.ReasoningContent += p.text
		case reasoningField:
			msg.Reasoning += p.text
		default:
			msg.Content += p.text
		}
	}
	p, q := c.usage()
	type choice struct {
		Index        int     `json:"index"`
		Message      message `json:"message"`
		FinishReason string  `json:"finish_reason"`
	}
	type details struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	}
	type usage struct {
		PromptTokens            int      `json:"prompt_tokens"`
		CompletionTokens        int      `json:"completion_tokens"`
		TotalTokens             int      `json:"total_tokens"`
		CompletionTokensDetails *details `json:"completion_tokens_details,omitempty"`
	}
	u := usage{p, q, p + q, nil}
	if c.reasoningChars > 0 {
		u.CompletionTokensDetails = &details{c.reasoningTokens()}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // <think> stays as it is, as API servers send it
	err := enc.Encode(struct {
		ID      string   `json:"id"`
		Object  string   `json:"object"`
		Created int64    `json:"created"`
		Model   string   `json:"model"`
		Choices []choice `json:"choices"`
		Usage   usage    `json:"usage"`
	}{c.id, "chat.completion", c.created, c.model, []choice{{Message: msg, FinishReason: finish}}, u})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	body := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	switch {
	case f.StallAfter > 0:
		w.Write(body[:len(body)/2])
		http.NewResponseController(w).Flush()
		<-r.Context().Done()
	case f.CutAfter > 0:
		w.Write(body[:len(body)/2])
		abort(w, false)
	default:
		w.Write(body)
	}
}

// completion is what every chunk of one response repeats, and what its usage is counted from.
type completion struct {
	id                           string
	created                      int64
	model                        string
	promptChars, completionChars int
	reasoningChars               int // of thinking, counted in completionChars too
}

// usage estimates token counts as a quarter of the characters, rounded up.
func (c completion) usage() (prompt, completion int) {
	return (c.promptChars + 3) / 4, (c.completionChars + 3) / 4
}

// reasoningTokens estimates the thinking's share of the completion tokens as usage does.
func (c completion) reasoningTokens() int {
	return (c.reasoningChars + 3) / 4
}

// sseWriter writes the events of one response, flushing them in batches; whoever waits
// between events flushes first. A write error sticks: nothing more is sent after it.
type sseWriter struct {
	w      *bufio.Writer
	rc     *http.ResponseController
	events int    // written since the last flush
	head   string // `{"id":…,"model":…,` common to every chunk of the response
	err    error

	quoted bytes.Buffer // reused for each text chunk's JSON string
	enc    *json.Encoder
}

func newSSEWriter(w http.ResponseWriter, c completion) *sseWriter {
	sw := &sseWriter{
		w:  bufio.NewWriterSize(w, 2*batchBytes),
		rc: http.NewResponseController(w),
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

// delta writes a chunk whose delta is field (the members before the text, such as
// contentField) and text.
func (sw *sseWriter) delta(field, text string) {
	sw.quoted.Reset()
	sw.enc.Encode(text) // a string always encodes
	sw.begin()
	sw.w.WriteString(sw.head)
	sw.w.WriteString(`"choices":[{"index":0,"delta":{`)
	sw.w.WriteString(field)
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
	if sw.events >= batchEvents || sw.w.Buffered() >= batchBytes {
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
