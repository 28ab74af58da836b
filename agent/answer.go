package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"parley/retry"
)

// Bounds on what a 2xx answer may make parley hold in memory.
const (
	// MaxStreamLine is the longest event-stream line read: a chunk is a few hundred bytes, so a
	// line past this is no stream parley can show, and reading on would only hold it in memory.
	MaxStreamLine = 4 << 20
	// maxAnswerBody bounds a 2xx answer that is not an event stream (a whole completion, an
	// error, a page), read whole to be understood.
	maxAnswerBody = 16 << 20
)

// errLineTooLong ends a stream with a line longer than MaxStreamLine.
var errLineTooLong = fmt.Errorf("the endpoint sent an event-stream line of more than %d MiB; parley stops reading there", MaxStreamLine>>20)

// answerBody is a 2xx answer as the SDK reads it. It reads the answer by its shape
// (retry.IsEventStream, retry.ReadAnswer): an event stream is passed on as its data lines alone
// (go-openai keeps every other line in memory, and a server's keep-alive comments would grow it
// without end), with the error frames the SDK would hide kept in the capture; a whole
// completion is passed on as the stream of one chunk it would have been; a JSON error, or
// anything else, ends the body at once with what it was noted in the capture.
type answerBody struct {
	body io.Closer
	c    *capture
	src  *bufio.Reader
	// out is what the SDK reads next; err ends the body once out is empty.
	out []byte
	err error
	// streaming is set once the answer is known to be an event stream.
	streaming bool
	// afterErrorEvent is set after an `event: error` line, until the event's data is passed on.
	afterErrorEvent bool
	// data gathers the data lines of the event being read (see streamLine); unended is set
	// once the server has left out the blank line that ends an event.
	data    []byte
	unended bool
	// long gathers a line longer than src's buffer.
	long []byte
}

func newAnswerBody(body io.ReadCloser, c *capture) *answerBody {
	src := bufio.NewReaderSize(&lineEnds{r: &notifier{r: body, c: c}}, 64<<10)
	return &answerBody{body: body, c: c, src: src}
}

func (b *answerBody) Close() error { return b.body.Close() }

func (b *answerBody) Read(p []byte) (int, error) {
	for len(b.out) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		b.next()
	}
	n := copy(p, b.out)
	b.out = b.out[n:]
	return n, nil
}

// next reads one line and decides what of it the SDK is given.
func (b *answerBody) next() {
	line, err := b.line()
	if err != nil && len(line) == 0 {
		b.dispatch() // the stream's end ends its last event
		b.err = err
		return
	}
	if !b.streaming {
		if len(bytes.TrimSpace(line)) == 0 && err == nil {
			return // leading blank lines decide nothing
		}
		if !retry.IsEventStream(b.c.header.Get("Content-Type"), line) {
			b.whole(line)
			return
		}
		b.streaming = true
	}
	b.streamLine(line)
	if err != nil {
		b.dispatch() // the stream's end ends its last event
		b.err = err
	}
}

// line reads the next line without its end, up to MaxStreamLine.
func (b *answerBody) line() ([]byte, error) {
	b.long = b.long[:0]
	for {
		part, err := b.src.ReadSlice('\n')
		if err == nil && len(b.long) == 0 {
			return part[:len(part)-1], nil
		}
		if len(b.long)+len(part) > MaxStreamLine {
			b.c.lineTooLong = true
			return nil, errLineTooLong
		}
		b.long = append(b.long, part...)
		switch {
		case err == nil:
			return b.long[:len(b.long)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		}
		return b.long, err
	}
}

// streamLine gathers an event's data lines and keeps what it must of the other lines. The
// data lines of one event are one payload, joined by line breaks (the SSE specification's
// rule); it is passed on at the event's end (or at once for [DONE]). A server seen to leave
// out the blank line ending an event has each payload passed on as soon as it reads as
// JSON, so that it is not held back by a line; the others are spared that extra reading of
// every payload.
func (b *answerBody) streamLine(line []byte) {
	switch {
	case bytes.HasPrefix(line, []byte("data:")):
		if len(b.data) > 0 {
			if json.Valid(b.data) {
				b.unended = true // a whole payload, and another begins: this server ends no events
				b.dispatch()
			} else {
				b.data = append(b.data, '\n')
			}
		}
		b.data = append(b.data, bytes.TrimSpace(line[len("data:"):])...)
		if string(b.data) == "[DONE]" || (b.unended && json.Valid(b.data)) {
			b.dispatch()
		}
	case len(line) == 0:
		b.dispatch()
	case bytes.HasPrefix(line, []byte("event:")):
		b.afterErrorEvent = bytes.Contains(line, []byte("error"))
		if b.afterErrorEvent {
			b.keepFrame(line)
		}
	case bytes.HasPrefix(line, []byte("error:")):
		b.keepFrame(line) // llama.cpp's own field
	case len(line) > 0 && line[0] == '{' && bytes.Contains(line[:min(len(line), 64)], []byte("error")):
		b.keepFrame(line) // an unframed error object
	}
	// Comments, blank lines and the other fields are the SDK's to ignore: they are dropped.
}

// dispatch passes the event's data on as one data line, noting [DONE] and error frames.
func (b *answerBody) dispatch() {
	if len(b.data) == 0 {
		return
	}
	payload := b.data
	if bytes.IndexByte(payload, '\n') >= 0 {
		// The SDK reads a line a payload: a payload of several lines goes as one, its line
		// breaks (white space between JSON's tokens) taken out.
		var one bytes.Buffer
		if json.Compact(&one, payload) == nil {
			payload = one.Bytes()
		} else {
			payload = bytes.ReplaceAll(payload, []byte("\n"), []byte(" "))
		}
	}
	line := append([]byte("data: "), payload...)
	switch {
	case string(payload) == "[DONE]":
		b.c.done = true
	case b.afterErrorEvent || bytes.HasPrefix(payload, []byte(`{"error"`)) || bytes.HasPrefix(payload, []byte(`{"type":"e`)):
		b.keepFrame(line)
	}
	b.afterErrorEvent = false
	b.out = append(append(b.out, line...), '\n')
	b.data = b.data[:0]
}

// keepFrame records an error frame's line for classification, up to maxCapture bytes.
func (b *answerBody) keepFrame(line []byte) {
	if room := maxCapture - b.c.frames.Len(); room > 0 {
		b.c.frames.Write(line[:min(len(line), room)])
		b.c.frames.WriteByte('\n')
	}
}

// whole reads an answer that is no event stream, beginning with first, to its end.
func (b *answerBody) whole(first []byte) {
	rest, err := io.ReadAll(io.LimitReader(b.src, maxAnswerBody))
	body := append(append(append([]byte(nil), first...), '\n'), rest...)
	b.err = io.EOF
	if err != nil {
		b.err = err
		return
	}
	shape, comp, what := retry.ReadAnswer(b.c.status, b.c.header.Get("Content-Type"), body)
	switch shape {
	case retry.ShapeCompletion:
		b.c.whole = true
		b.out = completionStream(comp)
	case retry.ShapeError:
		b.c.answerError = body[:min(len(body), maxCapture)]
	default:
		b.c.notStream = what
	}
}

// completionStream is a whole completion as the event stream of one chunk it would have been.
func completionStream(c retry.Completion) []byte {
	type delta struct {
		Content          string                `json:"content,omitempty"`
		ReasoningContent string                `json:"reasoning_content,omitempty"`
		ToolCalls        []retry.ToolCallDelta `json:"tool_calls,omitempty"`
	}
	type choice struct {
		Delta        delta  `json:"delta"`
		FinishReason string `json:"finish_reason,omitempty"`
	}
	chunk := struct {
		Model   string   `json:"model,omitempty"`
		Choices []choice `json:"choices"`
		Usage   *struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage,omitempty"`
	}{Model: c.Model, Choices: []choice{{Delta: delta{Content: c.Content, ReasoningContent: c.Reasoning, ToolCalls: c.ToolCalls},
		FinishReason: c.FinishReason}}}
	if c.PromptTokens+c.CompletionTokens > 0 {
		chunk.Usage = &struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		}{c.PromptTokens, c.CompletionTokens}
	}
	data, _ := json.Marshal(chunk) // plain strings and numbers: cannot fail
	return append(append([]byte("data: "), data...), "\n\ndata: [DONE]\n\n"...)
}

// notifier tells the capture each time bytes of the answer arrive.
type notifier struct {
	r io.Reader
	c *capture
}

func (n *notifier) Read(p []byte) (int, error) {
	k, err := n.r.Read(p)
	if k > 0 && n.c.onBytes != nil {
		n.c.onBytes()
	}
	return k, err
}

// lineEnds turns the line ends an event stream may use (CRLF, CR alone, LF) into LF.
type lineEnds struct {
	r io.Reader
	// cr is set when the last byte read was a CR, already passed on as LF: an LF right after
	// it ends the same line.
	cr bool
}

func (l *lineEnds) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if n == 0 || !l.cr && bytes.IndexByte(p[:n], '\r') < 0 {
		return n, err // the usual case: LF alone
	}
	out := p[:0]
	for _, c := range p[:n] {
		switch {
		case c == '\n' && l.cr:
			l.cr = false
			continue
		case c == '\r':
			l.cr = true
			out = append(out, '\n')
			continue
		}
		l.cr = false
		out = append(out, c)
	}
	return len(out), err
}
