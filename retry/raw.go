package retry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// ParseRaw reads a failure written out as text into the Failure the agent would have reported,
// all but its Now, which the caller sets before classifying. The text is either
//
//   - an HTTP response: a status line ("HTTP/1.1 429 Too Many Requests"), header lines, a
//     blank line and the body. A 2xx response's body is read by its shape (ReadAnswer): an
//     event stream as below, a JSON error as a status failure, anything else as what it is;
//   - an excerpt of an event stream, as received after a 200: data:, event: and error: lines,
//     ": comments" and bare JSON lines (as some streams send them).
//
// A stream is read the way the agent reads one: its first error frame, or else how it ended
// (cut without a finish, only comments, finished without content). ParseRaw fails, with a
// one-line error that says what to paste instead, on text that is neither, and on a stream
// that finished normally.
func ParseRaw(text []byte) (Failure, error) {
	// An event stream may end its lines with CR alone, or CRLF; they read as LF, as the agent
	// reads them.
	text = bytes.ReplaceAll(bytes.ReplaceAll(text, []byte("\r\n"), []byte("\n")), []byte("\r"), []byte("\n"))
	text = bytes.TrimLeft(text, " \t\n\ufeff")
	if bytes.HasPrefix(text, []byte("HTTP/")) {
		return parseResponse(text)
	}
	if !isStream(text) {
		return Failure{}, errors.New("not a raw failure: paste the response from its status line (HTTP/1.1 429 …), " +
			"or the stream's data:, event: and error: lines")
	}
	return streamFailure(text, http.StatusOK, nil)
}

// parseResponse reads a status line, header lines and the body after them.
func parseResponse(text []byte) (Failure, error) {
	line, rest, _ := bytes.Cut(text, []byte("\n"))
	statusLine := strings.TrimSpace(string(line))
	fields := strings.Fields(statusLine)
	status := 0
	if len(fields) >= 2 {
		status, _ = strconv.Atoi(fields[1])
	}
	if status < 100 || status > 599 {
		return Failure{}, fmt.Errorf("status line %q has no status; write it like HTTP/1.1 429 Too Many Requests", statusLine)
	}
	h := http.Header{}
	for len(rest) > 0 {
		if c := rest[0]; c == '{' || c == '[' || c == '<' {
			break // a body that follows the headers without its blank line
		}
		line, after, _ := bytes.Cut(rest, []byte("\n"))
		l := strings.TrimSpace(string(line))
		if l == "" {
			rest = after
			break
		}
		name, value, ok := strings.Cut(l, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return Failure{}, fmt.Errorf("header line %q is not \"Name: value\"; end the headers with a blank line before the body", l)
		}
		h.Add(strings.TrimSpace(name), strings.TrimSpace(value))
		rest = after
	}
	if status < 300 {
		return answerFailure(rest, status, h)
	}
	return Failure{Phase: Status, Status: status, Header: h, Body: rest}, nil
}

// answerFailure reads a 2xx response's body by its shape, as the agent does: an event stream
// as a stream; a JSON error as a status failure; a whole completion is no failure; anything
// else is a failure that says what came.
func answerFailure(body []byte, status int, h http.Header) (Failure, error) {
	ct := h.Get("Content-Type")
	if _, frame := StreamError(body); frame || IsEventStream(ct, body) {
		return streamFailure(body, status, h)
	}
	switch shape, _, what := ReadAnswer(status, ct, body); shape {
	case ShapeError:
		return Failure{Phase: Status, Status: status, Header: h, Body: body}, nil
	case ShapeCompletion:
		return Failure{}, errors.New("the response is a whole reply (a chat.completion), so nothing failed: paste the part that went wrong")
	default:
		return Failure{Phase: InStreamBeforeDelta, Status: status, Header: h, Kind: NetUnreadable, Err: errors.New(what)}, nil
	}
}

// isStream reports whether text holds any line an event stream is made of.
func isStream(text []byte) bool {
	for line := range bytes.Lines(text) {
		line = bytes.TrimSpace(line)
		for _, p := range []string{"data:", "event:", "error:", ":", "{"} {
			if bytes.HasPrefix(line, []byte(p)) {
				return true
			}
		}
	}
	return false
}

// streamFailure reads stream text received after status and headers h as the agent's reader
// does: the first error frame, with whether output came before it; else how the stream ended.
func streamFailure(body []byte, status int, h http.Header) (Failure, error) {
	f := Failure{Phase: InStreamBeforeDelta, Status: status, Header: h}
	if frame, ok := StreamError(body); ok {
		if output, _, _ := scanStream(body[:bytes.Index(body, frame)]); output {
			f.Phase = InStreamAfterDelta
		}
		f.Body = frame
		return f, nil
	}
	output, finished, onlyComments := scanStream(body)
	if output {
		f.Phase = InStreamAfterDelta
	}
	switch {
	case onlyComments:
		f.Kind = NetTimeoutFirstDelta
	case !finished:
		f.Kind = NetCut
	case !output:
		f.Kind = NetEmpty
	default:
		return Failure{}, errors.New("the stream finished normally, so nothing failed: paste the part with the error frame, or where it stopped")
	}
	return f, nil
}

// scanStream reports whether stream text holds output (answer text or thinking), whether it
// finished ([DONE] or a finish_reason), and whether it held no event-stream data at all, only
// comments (lines that are no event-stream field, such as a note of how it ended, are skipped).
func scanStream(body []byte) (output, finished, onlyComments bool) {
	onlyComments = true
	for line := range bytes.Lines(body) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == ':' || !isField(line) {
			continue
		}
		onlyComments = false
		payload, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		payload = bytes.TrimSpace(payload)
		if string(payload) == "[DONE]" {
			finished = true
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta        ChunkDelta `json:"delta"`
				FinishReason *string    `json:"finish_reason"`
			} `json:"choices"`
			Type  string                `json:"type"`
			Delta struct{ Text string } `json:"delta"`
		}
		if json.Unmarshal(payload, &chunk) != nil {
			continue
		}
		for _, c := range chunk.Choices {
			d := c.Delta
			output = output || d.Content != "" || d.Thinking() != ""
			finished = finished || c.FinishReason != nil
		}
		output = output || (chunk.Type == "content_block_delta" && chunk.Delta.Text != "")
	}
	return output, finished, onlyComments
}

// isField reports whether a stream line is an event-stream field or a bare JSON line.
func isField(line []byte) bool {
	if line[0] == '{' || line[0] == '[' {
		return true
	}
	name, _, ok := bytes.Cut(line, []byte(":"))
	return ok && len(name) > 0 && !bytes.ContainsAny(name, " \t<>")
}
