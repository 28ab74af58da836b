package agent

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
)

// maxCapture bounds what one attempt keeps of an error body or of a stream's error frames.
const maxCapture = 64 << 10

// attemptKey carries an attempt's capture through the request context to the transport.
type attemptKey struct{}

// capture is what the transport saw of one attempt: go-openai drops response headers and raw
// bodies on errors, and ignores SSE lines that are not `data:` lines, so parley records them
// itself, below the SDK.
type capture struct {
	status int
	header http.Header
	// body holds a non-2xx response body, up to maxCapture bytes.
	body bytes.Buffer
	// frames holds the stream's error frames (llama.cpp's `error:` field, `event: error` and the
	// data after it, `data: {"error"…}`), in the order they arrived, up to maxCapture bytes.
	frames bytes.Buffer
	// done is set when the stream carried `data: [DONE]`.
	done bool
	// url is where the request went, without its query, for messages that name the fix.
	url string
	// onBytes, when set, is called as bytes of a 2xx stream arrive, from the goroutine
	// reading the stream.
	onBytes func()
}

func withCapture(ctx context.Context, c *capture) context.Context {
	return context.WithValue(ctx, attemptKey{}, c)
}

// recordingTransport records each attempt's status, headers and error frames into the capture
// found in the request's context, and adds the endpoint's extra headers. It never retries:
// retries belong to Tier 1 alone, so they never stack.
type recordingTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	c, _ := req.Context().Value(attemptKey{}).(*capture)
	if c != nil {
		u := *req.URL
		u.RawQuery, u.User = "", nil
		c.url = u.String()
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil || c == nil {
		return resp, err
	}
	c.status = resp.StatusCode
	c.header = resp.Header.Clone()
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		resp.Body = &teeBody{ReadCloser: resp.Body, dst: &c.body}
	} else {
		resp.Body = &sseObserver{ReadCloser: resp.Body, c: c}
	}
	return resp, nil
}

// teeBody copies what is read through it into dst, up to maxCapture bytes.
type teeBody struct {
	io.ReadCloser
	dst *bytes.Buffer
}

func (b *teeBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if room := maxCapture - b.dst.Len(); room > 0 {
		b.dst.Write(p[:min(n, room)])
	}
	return n, err
}

// sseObserver watches the SSE lines of a stream as the SDK reads them and keeps the error
// frames the SDK would hide. It decides on each line from its first bytes, so it costs O(bytes)
// with no allocation per line.
type sseObserver struct {
	io.ReadCloser
	c *capture
	// head holds the first bytes of the current line, until the line is decided.
	head []byte
	// decided is set once the current line is known to be kept or not; keep says which.
	decided, keep bool
	// afterErrorEvent is set after an `event: error` line, until the next data line ends.
	afterErrorEvent bool
}

// sniff is how many bytes of a line decide whether it is an error frame.
const sniff = 16

func (o *sseObserver) Read(p []byte) (int, error) {
	n, err := o.ReadCloser.Read(p)
	if n > 0 && o.c.onBytes != nil {
		o.c.onBytes()
	}
	o.observe(p[:n])
	return n, err
}

func (o *sseObserver) observe(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		seg := b
		if i >= 0 {
			seg = b[:i]
		}
		if !o.decided {
			take := min(len(seg), sniff-len(o.head))
			o.head = append(o.head, seg[:take]...)
			seg = seg[take:]
			if len(o.head) == sniff || i >= 0 {
				o.decide()
			}
		}
		if o.keep {
			o.write(seg)
		}
		if i < 0 {
			return
		}
		o.endLine()
		b = b[i+1:]
	}
}

// decide classifies the current line from its head.
func (o *sseObserver) decide() {
	o.decided = true
	s := strings.TrimRight(string(o.head), "\r")
	switch {
	case strings.HasPrefix(s, "error:"),
		strings.HasPrefix(s, "event: error"), strings.HasPrefix(s, "event:error"),
		o.afterErrorEvent && strings.HasPrefix(s, "data:"),
		strings.HasPrefix(s, `data: {"error"`), strings.HasPrefix(s, `data:{"error"`),
		strings.HasPrefix(s, `data: {"type":"e`):
		o.keep = true
		o.write(o.head)
	case s == "data: [DONE]" || s == "data:[DONE]":
		o.c.done = true
	}
	switch {
	case strings.HasPrefix(s, "event:"):
		o.afterErrorEvent = strings.Contains(s, "error")
	case strings.HasPrefix(s, "data:"):
		o.afterErrorEvent = false
	}
}

func (o *sseObserver) write(b []byte) {
	if room := maxCapture - o.c.frames.Len(); room > 0 {
		o.c.frames.Write(b[:min(len(b), room)])
	}
}

func (o *sseObserver) endLine() {
	if o.keep {
		o.write([]byte("\n"))
	}
	o.head = o.head[:0]
	o.decided, o.keep = false, false
}
