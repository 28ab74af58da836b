package agent

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"parley/internal/chat"
	"parley/retry"
)

// The client against servers written by hand on 127.0.0.1: the shapes answers and thinking
// arrive in, streams that stall or go silent, and what the client says of each.

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
// request is sent, and the answer comes apart from it. The thinking lasts 2.5 times the
// deadline, and its first word comes in a sixth of it: under a loaded race run a 300 ms
// deadline was once missed before the first word.
func TestThinkingIsOutputInEveryShape(t *testing.T) {
	t.Parallel()
	model := map[string]string{"reasoning_content": "deepseek-reasoner", "reasoning": "qwen/qwen3-32b",
		"tags": "qwq:32b", "bare": "deepseek-r1:14b"}
	for _, shape := range []string{"reasoning_content", "reasoning", "tags", "bare"} {
		t.Run(shape, func(t *testing.T) {
			t.Parallel()
			const deadline = time.Second
			url, requests := scripted(t, thinkingScript(shape, deadline*5/2))
			c := NewClient(Endpoint{BaseURL: url, Model: model[shape], FirstDeltaTimeout: deadline},
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
	t.Parallel()
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
// idle deadline passes, with the words kept; each word resets the deadline. The gap before
// "three" is a third of the deadline, so a loaded machine cannot stretch it past it.
func TestStalledStreamTimesOut(t *testing.T) {
	t.Parallel()
	const gap, idle = 200 * time.Millisecond, 600 * time.Millisecond
	script := []step{
		{Line: chunkLine(`"role":"assistant","content":""`, "null")},
		contentStep(0, "One "), contentStep(gap, "two "), contentStep(gap, "three "),
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
	// The script takes 2 gaps and the silence after it the deadline: nothing ends it sooner,
	// and a deadline counted from the first word would. A silence that never ended it would
	// last as long as the test.
	if took, least := time.Since(start), 2*gap+idle; took < least || took > 10*time.Second {
		t.Errorf("ended after %s; the words should have held it for %s, then %s of silence", took, 2*gap, idle)
	}
}

// A model that thinks in silence past a non-reasoning deadline is still waited for.
func TestSilentThinkerMeetsItsDeadline(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// Keep-alives after the first words do not hold a stream open: a stopped server that keeps
// the socket and sends them (SSE comments, or llama-server's bare newlines) ends as a
// retryable timeout after the idle deadline, its text kept, saying only keep-alives came.
func TestKeepAlivesDoNotHoldAStreamOpen(t *testing.T) {
	t.Parallel()
	const gap, idle = 20 * time.Millisecond, 300 * time.Millisecond
	for name, keepAlive := range map[string]string{"comments": ": keep-alive", "bare newlines": "\n\n\n\n\n\n"} {
		t.Run(name, func(t *testing.T) {
			script := []step{{Line: chunkLine(`"role":"assistant","content":""`, "null")},
				contentStep(0, "One "), contentStep(0, "two "), contentStep(0, "three ")}
			for range 150 { // 3 s of keep-alives, ten times the idle deadline
				script = append(script, step{Wait: gap, Line: keepAlive})
			}
			script = append(script, contentStep(0, "never shown"), step{Hang: true})
			url, requests := scripted(t, script)
			c := testClient(Endpoint{BaseURL: url, Model: "m", StreamIdleTimeout: idle})
			_, answer, last := drain(c.Stream(context.Background(), hello))
			if requests.Load() != 1 || last.Class.Class != chat.Timeout || !last.Class.Retryable || answer != "One two three " {
				t.Fatalf("%d requests, ended %+v with %q", requests.Load(), last, answer)
			}
			if !strings.Contains(last.Class.Message, "only keep-alives for 300ms") {
				t.Errorf("message %q; want it to say only keep-alives came for the deadline", last.Class.Message)
			}
		})
	}
}

// A stream that sends nothing at all after its first words says no data came.
func TestSilentStreamSaysNoData(t *testing.T) {
	t.Parallel()
	script := []step{{Line: chunkLine(`"role":"assistant","content":""`, "null")}, contentStep(0, "One "), {Hang: true}}
	url, _ := scripted(t, script)
	c := testClient(Endpoint{BaseURL: url, Model: "m", StreamIdleTimeout: 200 * time.Millisecond})
	_, answer, last := drain(c.Stream(context.Background(), hello))
	if last.Class.Class != chat.Timeout || answer != "One " || !strings.Contains(last.Class.Message, "no data for 200ms") {
		t.Fatalf("ended %+v with %q", last, answer)
	}
}

// answerShapes are 2xx answers in every shape a server sends: each is read the same by the live
// client and by the explaining tool (retry.ParseRaw, which parley classify uses).
var answerShapes = []struct {
	name, contentType, body string
	// text is the reply shown for an answer that is one; otherwise class and retryable are the
	// failure's.
	text      string
	class     chat.Class
	retryable bool
	message   string // a part of the failure's message
}{
	{name: "a whole completion", contentType: "application/json",
		body: `{"id":"chatcmpl-1","object":"chat.completion","model":"llama-3.1-8b","choices":[{"index":0,"message":{"role":"assistant","content":"Sound travels at 343 m/s in air."},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":10,"total_tokens":19}}`,
		text: "Sound travels at 343 m/s in air."},
	{name: "a JSON error", contentType: "application/json",
		body:  `{"error":{"message":"The server is overloaded, please try again later.","type":"server_error"}}`,
		class: chat.Overloaded, retryable: true, message: "The server is overloaded, please try again later."},
	{name: "a login page", contentType: "text/html; charset=utf-8",
		body:  "<!DOCTYPE html>\n<html><head><title>Wi-Fi sign-in</title></head><body>Accept the terms</body></html>\n",
		class: chat.BadRequest, message: "the endpoint answered 200 text/html, not an event stream — a login page, or the wrong URL? (<!DOCTYPE html>)"},
	{name: "Ollama's native NDJSON", contentType: "application/x-ndjson",
		body: `{"model":"llama3.2","created_at":"2026-03-01T12:00:00Z","message":{"role":"assistant","content":"Hi"},"done":false}` + "\n" +
			`{"model":"llama3.2","created_at":"2026-03-01T12:00:01Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}` + "\n",
		class: chat.BadRequest, message: "lines of JSON"},
	{name: "plain text", contentType: "text/plain",
		body:  "upstream request timeout\n",
		class: chat.BadRequest, message: "200 text/plain, not an event stream"},
	{name: "an event stream with CR line ends", contentType: "text/event-stream",
		body: strings.ReplaceAll(`data: {"choices":[{"delta":{"content":"one "}}]}`+"\n\n"+
			`data: {"choices":[{"delta":{"content":"two"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n", "\n", "\r"),
		text: "one two"},
}

func TestAnswerShapesReadAlikeLiveAndExplained(t *testing.T) {
	t.Parallel()
	for _, tc := range answerShapes {
		t.Run(tc.name, func(t *testing.T) {
			var requests atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				w.Header().Set("Content-Type", tc.contentType)
				fmt.Fprint(w, tc.body)
			}))
			defer srv.Close()
			var text strings.Builder
			var last chat.Event
			for ev := range testClient(Endpoint{BaseURL: srv.URL + "/v1", Model: "m"}).Stream(context.Background(), hello) {
				if ev.Kind == chat.EventDelta {
					text.WriteString(ev.Text)
				}
				last = ev
			}
			if want := map[bool]int32{false: 1, true: 3}[tc.retryable]; requests.Load() != want {
				t.Errorf("%d requests, want %d", requests.Load(), want)
			}
			raw := "HTTP/1.1 200 OK\nContent-Type: " + tc.contentType + "\n\n" + tc.body
			f, err := retry.ParseRaw([]byte(raw))
			if tc.text != "" {
				if last.Kind != chat.EventFinished || text.String() != tc.text {
					t.Errorf("live: ended %+v with %q, want the reply %q", last, text.String(), tc.text)
				}
				if err == nil {
					t.Errorf("explained: a reply was taken for a failure: %+v", f)
				}
				return
			}
			if err != nil {
				t.Fatalf("explained: %v", err)
			}
			f.Now = time.Now()
			explained := retry.Classify(f)
			live := last.Class
			if last.Kind != chat.EventFailed || live.Class != tc.class || live.Retryable != tc.retryable || !strings.Contains(live.Message, tc.message) {
				t.Errorf("live: %+v; want %s retryable=%v saying %q", last, tc.class, tc.retryable, tc.message)
			}
			if explained.Class != live.Class || explained.Retryable != live.Retryable || explained.Message != live.Message {
				t.Errorf("explained %s/%v %q, live %s/%v %q", explained.Class, explained.Retryable, explained.Message,
					live.Class, live.Retryable, live.Message)
			}
		})
	}
}

// A redirect of the POST is not followed: the key would go to another place, and the POST
// would arrive as an empty GET. The failure names where it points.
func TestRedirectIsNamedNotFollowed(t *testing.T) {
	t.Parallel()
	var followed atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { followed.Add(1) }))
	defer target.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/api/v1/chat/completions", http.StatusMovedPermanently)
	}))
	defer srv.Close()
	last := lastEvent(t, testClient(Endpoint{BaseURL: srv.URL + "/v1", Model: "m", APIKey: "sk-secret"}).Stream(context.Background(), hello))
	want := "the endpoint redirects to " + target.URL + "/api/v1/chat/completions (HTTP 301): use that as the base URL"
	if last.Kind != chat.EventFailed || last.Class.Retryable || !strings.Contains(last.Class.Message, want) {
		t.Fatalf("ended %+v, want a failure saying %q", last, want)
	}
	if followed.Load() != 0 {
		t.Fatal("the redirect was followed")
	}
}

// A gateway that says it retried already gets no Tier 1 retries on top: behind Portkey's retry
// config parley's three attempts each waited through the gateway's own. Portkey says only -1
// once its retries are spent (1.15.2, seen with {"retry":{"attempts":3}}: four upstream
// requests): the config parley sent says how many.
func TestNoRetriesOnAGatewaysRetries(t *testing.T) {
	t.Parallel()
	for name, h := range map[string][4]string{
		"portkey, its retries spent": {"x-portkey-retry-attempt-count", "-1", "gateway retried until its retries were spent · "},
		"portkey, its configured retries spent": {"x-portkey-retry-attempt-count", "-1", "gateway retried 3× · ",
			`{"retry":{"attempts":3,"on_status_codes":[429,503]}}`},
		"portkey, retried twice": {"x-portkey-retry-attempt-count", "2", "gateway retried 2× · "},
		"litellm":                {"x-litellm-attempted-retries", "3", "gateway retried 3× · "},
	} {
		var requests atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			w.Header().Set(h[0], h[1])
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"error":{"message":"upstream overloaded","type":"server_error"}}`)
		}))
		ep := Endpoint{BaseURL: srv.URL + "/v1", Model: "m"}
		if h[3] != "" {
			ep.Headers = map[string]string{"X-Portkey-Config": h[3]}
		}
		last := lastEvent(t, testClient(ep).Stream(context.Background(), hello))
		srv.Close()
		if requests.Load() != 1 || last.Class.Class != chat.Overloaded || !last.Class.Retryable {
			t.Errorf("%s: %d requests, ended %s/%v; want 1 request, overloaded and retryable (for Tier 2)",
				name, requests.Load(), last.Class.Class, last.Class.Retryable)
		}
		if !strings.HasPrefix(last.Class.Message, h[2]) {
			t.Errorf("%s: the failure says %q, want it to begin %q", name, last.Class.Message, h[2])
		}
	}
}

// A 2xx that stays silent until the first-delta deadline may be billed each time: it is sent
// again once, and never for a reasoning model, which may be thinking.
func TestASilentAnswerIsSentAgainAtMostOnce(t *testing.T) {
	t.Parallel()
	counts := map[string]int32{}
	for _, model := range []string{"gpt-4o-mini", "deepseek-r1"} {
		var requests atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}))
		// The deadline is long enough for the headers to come first even on a loaded machine:
		// one that passes before them is a request unanswered, which Tier 1 retries as such.
		last := lastEvent(t, testClient(Endpoint{BaseURL: srv.URL + "/v1", Model: model, FirstDeltaTimeout: 500 * time.Millisecond}).
			Stream(context.Background(), hello))
		srv.Close()
		if last.Class.Class != chat.Timeout || !last.Class.Retryable {
			t.Errorf("%s: ended %+v", model, last)
		}
		counts[model] = requests.Load()
	}
	if counts["gpt-4o-mini"] != 2 || counts["deepseek-r1"] != 1 {
		t.Errorf("requests %v: want 2 for a model that does not think, 1 for one that does", counts)
	}
}

// A certificate this machine does not trust is not retried, and the failure names the fix.
func TestUntrustedCertificateNamesTheFix(t *testing.T) {
	t.Parallel()
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake error is the test's point
	srv.StartTLS()
	defer srv.Close()
	last := lastEvent(t, testClient(Endpoint{BaseURL: srv.URL + "/v1", Model: "m"}).Stream(context.Background(), hello))
	c := last.Class
	if last.Kind != chat.EventFailed || c.Class != chat.Network || c.Retryable || !strings.Contains(c.Message, "SSL_CERT_FILE") {
		t.Fatalf("ended %+v", last)
	}
	if conns.Load() != 1 {
		t.Errorf("%d connections: a certificate that cannot pass was tried again", conns.Load())
	}
}

// A model's tool call is output, never an empty reply, and it is named at the end; a stream
// line that is no JSON is counted, not silently dropped.
func TestToolCallsAndUnreadableLinesAreSaid(t *testing.T) {
	t.Parallel()
	stream := `data: {"choices":[{"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}` + "\n\n" +
		`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":\"Oslo\"}"}}]}}]}` + "\n\n" +
		"data: {not json\n\n" +
		`data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n"
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, stream)
	}))
	defer srv.Close()
	last := lastEvent(t, testClient(Endpoint{BaseURL: srv.URL + "/v1", Model: "m"}).Stream(context.Background(), hello))
	if last.Kind != chat.EventFinished || last.FinishReason != "tool_calls" || len(last.ToolCalls) != 1 || last.ToolCalls[0] != "get_weather" ||
		last.Unreadable != 1 || requests.Load() != 1 {
		t.Fatalf("ended %+v after %d requests", last, requests.Load())
	}
	notes := chat.RunNotes(last, "/tools turns them on")
	if len(notes) != 2 || notes[0] != "the model asked to call get_weather, which was not run: no tools are on (/tools turns them on)" ||
		notes[1] != "1 line of the stream could not be read; what it held is missing" {
		t.Errorf("notes %q", notes)
	}
}
