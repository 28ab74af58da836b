package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
)

// readAnswer reads body through an answerBody, in reads of step bytes, as the SDK would read
// a 2xx answer of contentType: what the SDK is given, and the capture.
func readAnswer(t *testing.T, contentType, body string, step int) (string, *capture, error) {
	t.Helper()
	c := &capture{status: http.StatusOK, header: http.Header{"Content-Type": {contentType}}}
	var src io.Reader = strings.NewReader(body)
	if step > 0 {
		src = &chunked{s: body, step: step}
	}
	b := newAnswerBody(io.NopCloser(src), c)
	got, err := io.ReadAll(b)
	return string(got), c, err
}

// chunked hands out s step bytes at a time, as a network would.
type chunked struct {
	s    string
	step int
}

func (c *chunked) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.step)], c.s)
	c.s = c.s[n:]
	return n, nil
}

func TestAnswerBodyKeepsErrorFramesAndPassesOnlyData(t *testing.T) {
	t.Parallel()
	stream := ": keep-alive\n\n" +
		`data: {"choices":[{"delta":{"role":"assistant"}}]}` + "\n\n" +
		`error: {"code":500,"message":"llama.cpp failed","type":"server_error"}` + "\n\n" +
		"event: error\n" +
		`data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` + "\n\n" +
		`data: {"choices":[{"delta":{"content":"error: not a frame"}}]}` + "\n\n" +
		"data: [DONE]\n\n"
	for _, step := range []int{1, 3, 7, 16, 17, len(stream)} {
		got, c, err := readAnswer(t, "text/event-stream", stream, step)
		if err != nil {
			t.Fatal(err)
		}
		wantFrames := `error: {"code":500,"message":"llama.cpp failed","type":"server_error"}` + "\n" +
			"event: error\n" +
			`data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` + "\n"
		if c.frames.String() != wantFrames {
			t.Errorf("steps of %d: frames\n%q\nwant\n%q", step, c.frames.String(), wantFrames)
		}
		wantOut := `data: {"choices":[{"delta":{"role":"assistant"}}]}` + "\n" +
			`data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` + "\n" +
			`data: {"choices":[{"delta":{"content":"error: not a frame"}}]}` + "\n" +
			"data: [DONE]\n"
		if got != wantOut {
			t.Errorf("steps of %d: the SDK was given\n%q\nwant only the data lines\n%q", step, got, wantOut)
		}
		if !c.done {
			t.Errorf("steps of %d: [DONE] not seen", step)
		}
	}
}

// Every line end an event stream may use reads alike.
func TestAnswerBodyReadsCROnlyAndCRLFLines(t *testing.T) {
	t.Parallel()
	lf := "data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n"
	for name, s := range map[string]string{
		"CR":   strings.ReplaceAll(lf, "\n", "\r"),
		"CRLF": strings.ReplaceAll(lf, "\n", "\r\n"),
	} {
		for _, step := range []int{1, 2, 5, len(s)} {
			got, c, err := readAnswer(t, "text/event-stream", s, step)
			if err != nil || got != "data: {\"a\":1}\ndata: {\"b\":2}\ndata: [DONE]\n" || !c.done {
				t.Errorf("%s in steps of %d: %q, done %v, %v", name, step, got, c.done, err)
			}
		}
	}
}

// Keep-alive comments, however many, cost nothing that grows: none reaches the SDK, which
// would keep them all.
func TestAnswerBodyDropsKeepAlives(t *testing.T) {
	t.Parallel()
	stream := strings.Repeat(": keep-alive\n\n", 100_000) + "data: [DONE]\n\n"
	got, c, err := readAnswer(t, "text/event-stream", stream, 0)
	if err != nil || got != "data: [DONE]\n" || c.frames.Len() != 0 {
		t.Fatalf("got %d bytes (%.40q), frames %d, %v", len(got), got, c.frames.Len(), err)
	}
}

// One line past MaxStreamLine ends the answer there, without holding more of it.
func TestAnswerBodyRefusesAnEndlessLine(t *testing.T) {
	t.Parallel()
	line := "data: " + strings.Repeat("x", MaxStreamLine+10) + "\n"
	got, c, err := readAnswer(t, "text/event-stream", `data: {"ok":1}`+"\n"+line, 4096)
	if !errors.Is(err, errLineTooLong) || !c.lineTooLong || got != `data: {"ok":1}`+"\n" {
		t.Fatalf("got %d bytes, lineTooLong %v, %v", len(got), c.lineTooLong, err)
	}
}

func TestAnswerBodyReadsAnswersThatAreNoStream(t *testing.T) {
	t.Parallel()
	completion := `{"id":"x","object":"chat.completion","model":"llama-3.1-8b","choices":[{"index":0,"message":{"role":"assistant","content":"The sky is blue.","reasoning_content":"Rayleigh."},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":5}}`
	got, c, err := readAnswer(t, "application/json", completion, 7)
	if err != nil || !c.whole || !strings.Contains(got, `"content":"The sky is blue."`) || !strings.Contains(got, `"reasoning_content":"Rayleigh."`) ||
		!strings.Contains(got, `"finish_reason":"stop"`) || !strings.Contains(got, `"prompt_tokens":12`) || !strings.HasSuffix(got, "data: [DONE]\n\n") {
		t.Fatalf("a whole completion was given as %q (whole %v, %v)", got, c.whole, err)
	}

	overloaded := `{"error":{"message":"The server is overloaded, please try again later","type":"server_error"}}`
	got, c, err = readAnswer(t, "application/json", overloaded, 0)
	if err != nil || got != "" || string(c.answerError) != overloaded+"\n" {
		t.Fatalf("a JSON error: given %q, kept %q, %v", got, c.answerError, err)
	}

	page := "<!DOCTYPE html>\n<html><head><title>Sign in to the network</title></head></html>\n"
	got, c, err = readAnswer(t, "text/html; charset=utf-8", page, 0)
	if err != nil || got != "" || c.notStream != "the endpoint answered 200 text/html, not an event stream — a login page, or the wrong URL? (<!DOCTYPE html>)" {
		t.Fatalf("a page: given %q, said %q, %v", got, c.notStream, err)
	}

	ndjson := `{"model":"llama3","message":{"role":"assistant","content":"Hi"},"done":false}` + "\n" +
		`{"model":"llama3","message":{"role":"assistant","content":""},"done":true}` + "\n"
	_, c, _ = readAnswer(t, "application/x-ndjson", ndjson, 0)
	if !strings.Contains(c.notStream, "lines of JSON") || !strings.Contains(c.notStream, "/v1") {
		t.Fatalf("NDJSON: said %q", c.notStream)
	}
}

// A stream read byte by byte through a reader that reports errors late loses nothing.
func TestAnswerBodyOneByteReads(t *testing.T) {
	t.Parallel()
	stream := `data: {"choices":[{"delta":{"content":"hé"}}]}` + "\n\ndata: [DONE]\n\n"
	c := &capture{status: 200, header: http.Header{"Content-Type": {"text/event-stream"}}}
	got, err := io.ReadAll(newAnswerBody(io.NopCloser(iotest.DataErrReader(iotest.OneByteReader(strings.NewReader(stream)))), c))
	if err != nil || !bytes.Equal(got, []byte(`data: {"choices":[{"delta":{"content":"hé"}}]}`+"\ndata: [DONE]\n")) {
		t.Fatalf("%q, %v", got, err)
	}
}

// A server that leaves out the blank line ending each event is held back once, by the
// line that shows it: from then on each payload reaches the SDK as soon as it is whole,
// before the next line comes.
func TestAnswerBodyDoesNotHoldBackAServerThatEndsNoEvents(t *testing.T) {
	t.Parallel()
	src, w := io.Pipe()
	b := newAnswerBody(src, &capture{status: http.StatusOK, header: http.Header{"Content-Type": {"text/event-stream"}}})
	read := make(chan string)
	go func() {
		for buf := make([]byte, 4096); ; {
			n, err := b.Read(buf)
			if n > 0 {
				read <- string(buf[:n])
			}
			if err != nil {
				close(read)
				return
			}
		}
	}()
	go func() {
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"one"}}]}`+"\n")
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"two"}}]}`+"\n")
	}()
	var got strings.Builder
	for !strings.Contains(got.String(), `"two"`) {
		s, ok := <-read
		if !ok {
			t.Fatalf("the stream ended with %q", got.String())
		}
		got.WriteString(s)
	}
	if want := `data: {"choices":[{"index":0,"delta":{"content":"one"}}]}` + "\n" +
		`data: {"choices":[{"index":0,"delta":{"content":"two"}}]}` + "\n"; got.String() != want {
		t.Fatalf("the SDK was given %q", got.String())
	}
	w.Close()
}

// What reading an answer costs a line, for a stream whose events end as the specification
// says (one data line and a blank line): go test -bench AnswerBody ./agent.
func BenchmarkAnswerBody(b *testing.B) {
	var stream strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&stream, `data: {"id":"chatcmpl-9xQ2","object":"chat.completion.chunk","created":1796123115,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0aa8d3e20b","choices":[{"index":0,"delta":{"content":"word%d "},"logprobs":null,"finish_reason":null}]}`+"\n\n", i)
	}
	stream.WriteString("data: [DONE]\n\n")
	s := stream.String()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		body := newAnswerBody(io.NopCloser(strings.NewReader(s)), &capture{status: http.StatusOK,
			header: http.Header{"Content-Type": {"text/event-stream"}}})
		if _, err := io.Copy(io.Discard, body); err != nil {
			b.Fatal(err)
		}
	}
}
