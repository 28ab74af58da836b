package agent

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/zlib"
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
// itself, below the SDK, and reads a 2xx answer by its shape (answerBody).
type capture struct {
	status int
	header http.Header
	// body holds a non-2xx response body, up to maxCapture bytes.
	body bytes.Buffer
	// frames holds the stream's error frames (llama.cpp's `error:` field, `event: error` and the
	// data after it, `data: {"error"…}`, unframed error objects), in the order they arrived, up
	// to maxCapture bytes.
	frames bytes.Buffer
	// done is set when the stream carried `data: [DONE]`.
	done bool
	// whole is set when a 2xx answer was a whole completion, not a stream (answerBody passes it
	// on as one); answerError holds a 2xx answer that was a JSON error; notStream says what a
	// 2xx answer that was neither held; lineTooLong is set when a stream line passed
	// MaxStreamLine.
	whole       bool
	answerError []byte
	notStream   string
	lineTooLong bool
	// url is where the request went, without its query, for messages that name the fix.
	url string
	// listing is set for a request that is no stream (GET /models): its 2xx body is the
	// SDK's to read as it is.
	listing bool
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
	inflate(resp)
	c.status = resp.StatusCode
	c.header = resp.Header.Clone()
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		// The SDK takes a 3xx for a stream; it is the answer, read here whole (redirects are
		// not followed: see NewClient).
		io.Copy(&c.body, io.LimitReader(resp.Body, maxCapture))
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(nil))
		return resp, nil
	}
	switch {
	case resp.StatusCode < 200 || resp.StatusCode >= 300:
		resp.Body = &teeBody{ReadCloser: resp.Body, dst: &c.body}
	case !c.listing:
		resp.Body = newAnswerBody(resp.Body, c)
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

// inflate decodes a body sent with Content-Encoding: deflate, as net/http decodes gzip.
func inflate(resp *http.Response) {
	if !strings.EqualFold(strings.TrimSpace(resp.Header.Get("Content-Encoding")), "deflate") {
		return
	}
	resp.Body = &deflateBody{src: bufio.NewReader(resp.Body), body: resp.Body}
	resp.Header.Del("Content-Encoding")
	resp.Header.Del("Content-Length")
	resp.ContentLength = -1
	resp.Uncompressed = true
}

// deflateBody reads deflate as HTTP means it (zlib-wrapped) or raw, as some servers send it:
// which, zlib's header tells at the first read (not before: the body may be slow to come).
type deflateBody struct {
	src  *bufio.Reader
	body io.Closer
	r    io.Reader
	err  error
}

func (d *deflateBody) Read(p []byte) (int, error) {
	if d.r == nil && d.err == nil {
		head, err := d.src.Peek(2)
		switch {
		case err != nil:
			d.err = err
		case head[0]&0x0f == 8 && (uint16(head[0])<<8|uint16(head[1]))%31 == 0:
			d.r, d.err = zlib.NewReader(d.src)
		default:
			d.r = flate.NewReader(d.src)
		}
	}
	if d.err != nil {
		return 0, d.err
	}
	return d.r.Read(p)
}

func (d *deflateBody) Close() error { return d.body.Close() }
