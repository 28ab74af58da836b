package agent

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"parley/internal/chat"
	"parley/retry"
)

// step is one write of a scripted stream: after Wait, Line (an SSE line, or "" for nothing);
// Hang stops writing without closing until the client goes away.
type step struct {
	Wait time.Duration
	Line string
	Hang bool
}

// scripted serves every request with the same paced SSE script on 127.0.0.1 and counts them.
func scripted(t *testing.T, script []step) (url string, requests *atomic.Int32) {
	t.Helper()
	requests = new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		for _, s := range script {
			select {
			case <-time.After(s.Wait):
			case <-r.Context().Done():
				return
			}
			if s.Hang {
				<-r.Context().Done()
				return
			}
			if s.Line != "" {
				fmt.Fprintf(w, "%s\n\n", s.Line)
				rc.Flush()
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", requests
}

// chunkLine is a chat.completion.chunk data line whose choice is delta (JSON fields) and
// finish reason (JSON value).
func chunkLine(delta, finish string) string {
	return `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"m","choices":[{"index":0,"delta":{` +
		delta + `},"finish_reason":` + finish + `}]}`
}

func contentStep(wait time.Duration, text string) step {
	return step{Wait: wait, Line: chunkLine(`"content":`+quote(text), "null")}
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

// thinkingScript streams thinking in shape for about think (in eight pieces), then the answer.
func thinkingScript(shape string, think time.Duration) []step {
	words := strings.Fields("The user asks about TCP. First recall the handshake: SYN, SYN-ACK, then ACK.")
	s := []step{{Line: chunkLine(`"role":"assistant","content":""`, "null")}}
	piece := think / time.Duration(len(words)+1)
	if shape == "tags" {
		s = append(s, contentStep(0, "<think>"))
	}
	for _, w := range words {
		switch shape {
		case "reasoning_content":
			s = append(s, step{Wait: piece, Line: chunkLine(`"content":null,"reasoning_content":`+quote(w+" "), "null")})
		case "reasoning":
			s = append(s, step{Wait: piece, Line: chunkLine(`"content":"","reasoning":`+quote(w+" "), "null")})
		default: // tags, bare
			s = append(s, contentStep(piece, w+" "))
		}
	}
	if shape == "tags" || shape == "bare" {
		s = append(s, contentStep(piece, "</th"), contentStep(0, "ink>\n\n"))
	}
	return append(s, contentStep(0, "TCP opens with "), contentStep(0, "a three-way handshake."),
		step{Line: chunkLine(``, `"stop"`)}, step{Line: "data: [DONE]"})
}

func drain(events <-chan chat.Event) (reasoning, answer string, last chat.Event) {
	var r, a strings.Builder
	for ev := range events {
		switch ev.Kind {
		case chat.EventReasoning:
			r.WriteString(ev.Text)
		case chat.EventDelta:
			a.WriteString(ev.Text)
		}
		last = ev
	}
	return r.String(), a.String(), last
}

// Thinking in any of its three shapes is output: it meets the first-delta deadline, one
// request is sent, and the answer comes apart from it.
func TestThinkingIsOutputInEveryShape(t *testing.T) {
	model := map[string]string{"reasoning_content": "deepseek-reasoner", "reasoning": "qwen/qwen3-32b",
		"tags": "qwq:32b", "bare": "deepseek-r1:14b"}
	for _, shape := range []string{"reasoning_content", "reasoning", "tags", "bare"} {
		t.Run(shape, func(t *testing.T) {
			t.Parallel()
			url, requests := scripted(t, thinkingScript(shape, 900*time.Millisecond))
			c := NewClient(Endpoint{BaseURL: url, Model: model[shape], FirstDeltaTimeout: 300 * time.Millisecond},
				chat.SystemClock{}, retry.DefaultPolicy())
			reasoning, answer, last := drain(c.Stream(context.Background(), hello))
			if last.Kind != chat.EventFinished || requests.Load() != 1 {
				t.Fatalf("ended %+v after %d requests", last, requests.Load())
			}
			if answer != "TCP opens with a three-way handshake." {
				t.Errorf("answer %q", answer)
			}
			if !strings.HasPrefix(strings.TrimSpace(reasoning), "The user asks about TCP.") || strings.Contains(reasoning, "think>") ||
				!strings.HasSuffix(strings.TrimSpace(reasoning), "then ACK.") {
				t.Errorf("reasoning %q", reasoning)
			}
		})
	}
}

// A connection dropped while the model thinks is not retried: the thinking was output.
func TestDroppedWhileThinkingIsNotRetried(t *testing.T) {
	script := thinkingScript("reasoning_content", 100*time.Millisecond)[:4] // role and three words, then the handler returns
	url, requests := scripted(t, script)
	c := testClient(Endpoint{BaseURL: url, Model: "deepseek-reasoner"})
	reasoning, _, last := drain(c.Stream(context.Background(), hello))
	if requests.Load() != 1 || last.Kind != chat.EventFailed || !last.Class.Retryable || last.Class.Class != chat.Network {
		t.Fatalf("%d requests, ended %+v", requests.Load(), last)
	}
	if reasoning != "The user asks " {
		t.Errorf("thinking kept: %q", reasoning)
	}
}

// A stream that stops sending after its first words fails as a retryable timeout once the
// idle deadline passes, with the words kept; keep-alive comments hold it open. Each gap in the
// script is a third of the deadline, so a loaded machine cannot stretch one past it; the
// second of silence before "three" would pass it, were the comments not counted.
func TestStalledStreamTimesOut(t *testing.T) {
	const gap, idle = 200 * time.Millisecond, 600 * time.Millisecond
	keepAlive := step{Wait: gap, Line: ": keep-alive"}
	script := []step{
		{Line: chunkLine(`"role":"assistant","content":""`, "null")},
		contentStep(0, "One "), contentStep(0, "two "),
		keepAlive, keepAlive, keepAlive, keepAlive,
		contentStep(gap, "three "),
		{Hang: true},
	}
	url, requests := scripted(t, script)
	c := testClient(Endpoint{BaseURL: url, Model: "m", StreamIdleTimeout: idle})
	start := time.Now()
	_, answer, last := drain(c.Stream(context.Background(), hello))
	if requests.Load() != 1 || last.Kind != chat.EventFailed || last.Class.Class != chat.Timeout || !last.Class.Retryable {
		t.Fatalf("%d requests, ended %+v", requests.Load(), last)
	}
	if answer != "One two three " {
		t.Errorf("kept %q", answer)
	}
	// The script takes 5 gaps and the silence after it the deadline: nothing ends it sooner,
	// and a deadline counted from the start of the stream would. A silence that never ended
	// it would last as long as the test.
	if took, least := time.Since(start), 5*gap+idle; took < least || took > 10*time.Second {
		t.Errorf("ended after %s; the comments should have held it for %s, then %s of silence", took, 5*gap, idle)
	}
}

// A model that thinks in silence past a non-reasoning deadline is still waited for.
func TestSilentThinkerMeetsItsDeadline(t *testing.T) {
	script := []step{{Line: chunkLine(`"role":"assistant","content":""`, "null")},
		contentStep(600*time.Millisecond, "Answer."), {Line: chunkLine(``, `"stop"`)}, {Line: "data: [DONE]"}}
	url, requests := scripted(t, script)
	on := true
	c := testClient(Endpoint{BaseURL: url, Model: "house-model", Reasoning: &on})
	if _, answer, last := drain(c.Stream(context.Background(), hello)); last.Kind != chat.EventFinished || answer != "Answer." || requests.Load() != 1 {
		t.Fatalf("%d requests, %q, %+v", requests.Load(), answer, last)
	}
	short := NewClient(Endpoint{BaseURL: url, Model: "house-model", FirstDeltaTimeout: 200 * time.Millisecond}, instantClock(), oneAttempt())
	if _, _, last := drain(short.Stream(context.Background(), hello)); last.Class.Class != chat.Timeout {
		t.Fatalf("a 200 ms deadline on a 600 ms silence: %+v", last)
	}
}

// Thinking that used the whole token budget ends as a success with no answer and says why.
func TestLengthWhileThinking(t *testing.T) {
	script := []step{{Line: chunkLine(`"role":"assistant","content":""`, "null")},
		{Line: chunkLine(`"reasoning_content":"Let me think about this carefully"`, "null")},
		{Line: chunkLine(``, `"length"`)},
		{Line: `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"m","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":64,"completion_tokens_details":{"reasoning_tokens":64}}}`},
		{Line: "data: [DONE]"}}
	url, _ := scripted(t, script)
	c := testClient(Endpoint{BaseURL: url, Model: "deepseek-reasoner", MaxTokens: 64})
	var usage chat.Usage
	var last chat.Event
	for ev := range c.Stream(context.Background(), hello) {
		if ev.Kind == chat.EventUsage {
			usage.Add(ev.Usage)
		}
		last = ev
	}
	if last.Kind != chat.EventFinished || last.FinishReason != "length" {
		t.Fatalf("ended %+v", last)
	}
	if usage.CompletionTokens != 64 || usage.ReasoningTokens != 64 {
		t.Errorf("usage %+v", usage)
	}
}

// Keep-alive comments after the first word hold the stream open only for a while: a dead
// upstream behind a gateway that keeps sending them ends as a timeout, its text kept.
func TestKeepAlivesDoNotHoldAStreamForever(t *testing.T) {
	const gap, idle = 20 * time.Millisecond, 100 * time.Millisecond
	script := []step{{Line: chunkLine(`"role":"assistant","content":""`, "null")}, contentStep(0, "Partial ")}
	for range 150 { // 3 s of comments, far more than the QuietStreamFactor idle timeouts allowed
		script = append(script, step{Wait: gap, Line: ": keep-alive"})
	}
	script = append(script, contentStep(0, "never shown"), step{Hang: true})
	url, _ := scripted(t, script)
	c := testClient(Endpoint{BaseURL: url, Model: "m", StreamIdleTimeout: idle})
	start := time.Now()
	_, answer, last := drain(c.Stream(context.Background(), hello))
	took := time.Since(start)
	if last.Class.Class != chat.Timeout || answer != "Partial " {
		t.Fatalf("ended %+v with %q", last, answer)
	}
	if took < QuietStreamFactor*idle || took > 2*time.Second {
		t.Errorf("ended after %s; want after about %s of comments, well before the script's 3 s", took, QuietStreamFactor*idle+idle)
	}
}
