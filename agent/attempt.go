package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"parley/internal/chat"
	"parley/retry"
)

// errThinkNeverClosed is a reply whose content opened <think> and ended inside it.
var errThinkNeverClosed = errors.New("all of it was thinking, and its <think> was never closed")

// result is how one attempt ended: failure is nil when the reply finished.
type result struct {
	failure *retry.Failure
	// url is where the attempt's request went.
	url string
	// gotOutput is set once output (answer or thinking) reached the operator: the commit
	// point, after which nothing is retried.
	gotOutput    bool
	finishReason string
	// model is the model that answered, as the stream's chunks name it; calls the tool calls
	// it streamed; unreadable counts lines that were no JSON.
	model      string
	calls      streamedCalls
	unreadable int
	// others are the indexes of the choices besides the first that the endpoint sent unasked:
	// they are ignored, counted, and said once.
	others map[int]bool
	// gotUsage is set when the endpoint reported usage; outputRunes counts the characters
	// of the output, for an estimate when it did not.
	gotUsage    bool
	outputRunes int
}

// chunk is the part of a streamed chat.completion.chunk parley reads. Error and Type catch
// error frames that arrive as ordinary data lines. Thinking arrives as reasoning_content or
// reasoning (go-openai's own chunk type knows only the first; parley reads the raw chunk).
type chunk struct {
	Choices []struct {
		Index        int              `json:"index"`
		Delta        retry.ChunkDelta `json:"delta"`
		FinishReason string           `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens            int `json:"prompt_tokens"`
		CompletionTokens        int `json:"completion_tokens"`
		CompletionTokensDetails *struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"usage"`
	Error   json.RawMessage `json:"error"`
	Type    string          `json:"type"`
	Object  string          `json:"object"`
	Message string          `json:"message"`
	Model   string          `json:"model"`
}

// isError reports whether a data payload is an error frame rather than a chunk: an "error"
// member, an error event type, or a bare error object (a message and no choices).
func (ch *chunk) isError() bool {
	return len(ch.Error) > 0 && string(ch.Error) != "null" || ch.Type == "error" || ch.Object == "error" ||
		ch.Choices == nil && ch.Usage == nil && ch.Message != ""
}

// usage is the chunk's usage as parley counts it: thinking is output. Most endpoints count
// reasoning_tokens inside completion_tokens; one that reports more thinking than output
// counted it apart, and it is added.
func (ch *chunk) usage() chat.Usage {
	u := chat.Usage{PromptTokens: ch.Usage.PromptTokens, CompletionTokens: ch.Usage.CompletionTokens}
	if d := ch.Usage.CompletionTokensDetails; d != nil {
		u.ReasoningTokens = d.ReasoningTokens
		if u.ReasoningTokens > u.CompletionTokens {
			u.CompletionTokens += u.ReasoningTokens
		}
	}
	return u
}

func (c *Client) attempt(ctx context.Context, msgs []chat.Message, withUsage bool, out chan<- chat.Event) result {
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	var capt capture

	// The first-delta deadline runs from the send until the first output, answer or thinking;
	// comments and role-only chunks do not extend it. From the first output on, the idle
	// deadline runs instead, and only output resets it: keep-alives (SSE comments, a stopped
	// server's bare newlines) show the connection is up, not that the reply goes on. Both are
	// network deadlines, so they run on real time.
	var expired, idled, keptAlive atomic.Bool
	firstDelta := c.ep.FirstDeltaDeadline() // matches the model's name: once an attempt
	deadline := time.AfterFunc(firstDelta, func() {
		expired.Store(true)
		cancel()
	})
	defer deadline.Stop()
	idleFor := c.ep.StreamIdleDeadline()
	var idle *time.Timer
	defer func() {
		if idle != nil {
			idle.Stop()
		}
	}()
	// keptAlive says bytes came since the last output, for the words of an idle timeout.
	capt.onBytes = func() { keptAlive.Store(true) }
	actx = withCapture(actx, &capt)

	stream, err := c.api.CreateChatCompletionStream(actx, c.request(msgs, withUsage))
	c.noteRemaining(capt.status, capt.header)
	if err != nil {
		f := &retry.Failure{Now: c.clock.Now(), Err: err}
		switch {
		case capt.status != 0:
			f.Phase, f.Status, f.Header, f.Body = retry.Status, capt.status, capt.header, capt.body.Bytes()
		case expired.Load():
			f.Phase, f.Kind = retry.BeforeHeaders, retry.NetTimeoutFirstDelta
			f.Err = fmt.Errorf("nothing within %s", firstDelta)
		default:
			f.Phase = retry.BeforeHeaders
		}
		return result{failure: f, url: capt.url}
	}
	defer stream.Close()
	if capt.status >= 300 {
		// A redirect, which the SDK read as a stream.
		return result{url: capt.url, failure: &retry.Failure{Phase: retry.Status, Status: capt.status, Header: capt.header,
			Body: capt.body.Bytes(), Now: c.clock.Now()}}
	}

	res := result{url: capt.url}
	split := thinkSplitter{holdBare: c.ep.inlineThinker()}
	echo := echoOf(msgs)
	emit := func(kind chat.EventKind, text string) {
		if kind == chat.EventDelta {
			text = echo.take(text)
		}
		if text != "" {
			res.outputRunes += utf8.RuneCountInString(text)
			out <- chat.Event{Kind: kind, Text: text}
		}
	}
	// output takes the text of a chunk. The first output, text or a tool call, is the commit
	// point (no retry after it) and starts the idle deadline.
	commit := func() {
		if !res.gotOutput {
			res.gotOutput = true
			deadline.Stop()
			idle = time.AfterFunc(idleFor, func() {
				idled.Store(true)
				cancel()
			})
		} else {
			idle.Reset(idleFor)
		}
		keptAlive.Store(false)
	}
	output := func(reasoning, content string) {
		if reasoning == "" && content == "" {
			return
		}
		commit()
		if reasoning != "" {
			// Thinking in a field of its own means the content is the answer, tags or not.
			if r, a := split.end(true); r != "" || a != "" {
				emit(chat.EventReasoning, r)
				emit(chat.EventDelta, a)
			}
			split.state = thinkAnswer
			emit(chat.EventReasoning, reasoning)
		}
		r, a := split.split(content)
		emit(chat.EventReasoning, r)
		emit(chat.EventDelta, a)
	}
	// end hands on what the splitter holds when the attempt ends, however it ends.
	end := func(r result) result {
		rs, a := split.end(r.failure != nil || ctx.Err() != nil)
		emit(chat.EventReasoning, rs)
		emit(chat.EventDelta, a)
		emit(chat.EventDelta, echo.flush())
		return r
	}
	inStream := func(kind retry.NetKind, body []byte, err error) result {
		phase := retry.InStreamBeforeDelta
		if res.gotOutput {
			phase = retry.InStreamAfterDelta
		}
		res.failure = &retry.Failure{Phase: phase, Status: capt.status, Header: capt.header, Body: body, Err: err, Kind: kind, Now: c.clock.Now()}
		return end(res)
	}
	for {
		if ctx.Err() != nil {
			// Stopped: the lines the connection's buffers still hold are not read on, so a
			// fast stream ends at esc, not a buffer's worth of text later.
			return end(res)
		}
		raw, err := stream.RecvRaw()
		if err != nil {
			if ctx.Err() != nil {
				return end(res)
			}
			if frame, ok := retry.StreamError(capt.frames.Bytes()); ok {
				return inStream(retry.NetUnknown, frame, err)
			}
			switch {
			case capt.answerError != nil:
				// A 2xx whose body is an error: classified as the status failure it is.
				res.failure = &retry.Failure{Phase: retry.Status, Status: capt.status, Header: capt.header,
					Body: capt.answerError, Now: c.clock.Now()}
				return end(res)
			case capt.notStream != "":
				return inStream(retry.NetUnreadable, nil, errors.New(capt.notStream))
			case capt.lineTooLong:
				return inStream(retry.NetUnreadable, nil, errLineTooLong)
			case expired.Load():
				return inStream(retry.NetTimeoutFirstDelta, nil, fmt.Errorf("nothing within %s", firstDelta))
			case idled.Load():
				if keptAlive.Load() {
					return inStream(retry.NetStreamIdle, nil, fmt.Errorf("only keep-alives for %s", minutes(idleFor)))
				}
				return inStream(retry.NetStreamIdle, nil, fmt.Errorf("no data for %s", minutes(idleFor)))
			case errors.Is(err, io.EOF) && (capt.done || res.finishReason != ""):
				switch {
				case !res.gotOutput:
					return inStream(retry.NetEmpty, nil, nil)
				case split.state == thinkInside && len(res.calls.calls) == 0 && res.finishReason != "length":
					// No answer: all of it was thinking (a token limit says so itself:
					// chat.ThoughtOut).
					return inStream(retry.NetEmpty, nil, errThinkNeverClosed)
				}
				return end(res)
			case errors.Is(err, io.EOF):
				// Neither [DONE] nor a finish_reason: the stream was cut.
				return inStream(retry.NetCut, nil, io.ErrUnexpectedEOF)
			default:
				return inStream(retry.NetCut, nil, err)
			}
		}
		var ch chunk
		if err := json.Unmarshal(raw, &ch); err != nil {
			res.unreadable++
			line := c.redact.String(string(raw)) // before it is cut, which a secret may straddle
			c.log.Warn("a stream line could not be read", "err", err, "line", line[:min(len(line), 200)])
			continue
		}
		if ch.isError() {
			return inStream(retry.NetUnknown, raw, nil)
		}
		if res.model == "" {
			res.model = ch.Model
		}
		for _, choice := range ch.Choices {
			if choice.Index != 0 {
				if res.others == nil {
					res.others = map[int]bool{}
					c.log.Warn("the endpoint sends choices besides the first, which was the one asked for; they are ignored", "index", choice.Index)
				}
				res.others[choice.Index] = true
				continue
			}
			d := choice.Delta
			if len(d.ToolCalls) > 0 {
				commit() // a tool call is output: nothing is sent again after it
			}
			for _, tc := range d.ToolCalls {
				out <- res.calls.add(tc)
			}
			output(d.Thinking(), d.Content)
			if choice.FinishReason != "" {
				res.finishReason = choice.FinishReason
				if choice.FinishReason == "content_filter" {
					return inStream(retry.NetUnknown, raw, nil)
				}
			}
		}
		if ch.Usage != nil {
			res.gotUsage = true
			out <- chat.Event{Kind: chat.EventUsage, Usage: ch.usage()}
		}
	}
}

// minutes is d as a deadline is configured: "2m", "1m30s", "600ms".
func minutes(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		return strings.TrimSuffix(s, "0s")
	}
	return s
}
