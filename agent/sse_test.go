package agent

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"parley/internal/chat"
)

// Event streams as the SSE specification allows them and OpenAI-compatible servers send
// them, beyond one data line an event: what each reads as.

// served answers every request with body, under header, on 127.0.0.1, and counts them.
func served(t *testing.T, header map[string]string, body []byte) (url string, requests *atomic.Int32) {
	t.Helper()
	requests = new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", requests
}

// run streams hello from the endpoint at url and returns its thinking, answer and last event.
func run(url string) (reasoning, answer string, last chat.Event) {
	return drain(testClient(Endpoint{BaseURL: url, Model: "m"}).Stream(context.Background(), hello))
}

// Several data lines in one event are one payload, joined by line breaks (the SSE
// specification's own rule): a chunk a server wrote over three lines is read, not dropped.
func TestADataFieldOverSeveralLinesIsOneEvent(t *testing.T) {
	t.Parallel()
	stream := chunkLine(`"role":"assistant","content":""`, "null") + "\n\n" +
		"data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\n" +
		"data:  \"choices\":[{\"index\":0,\n" +
		"data: \"delta\":{\"content\":\"Hello, world\"},\"finish_reason\":null}]}\n\n" +
		chunkLine(``, `"stop"`) + "\n\ndata: [DONE]\n\n"
	for _, step := range []int{1, 5, len(stream)} {
		got, c, err := readAnswer(t, "text/event-stream", stream, step)
		if err != nil || strings.Count(got, "\n") != 4 || !strings.Contains(got, `"content":"Hello, world"`) || !c.done {
			t.Errorf("steps of %d: the SDK was given %q, %v", step, got, err)
		}
	}
	url, requests := served(t, nil, []byte(stream))
	_, answer, last := run(url)
	if last.Kind != chat.EventFinished || answer != "Hello, world" || last.Unreadable != 0 || requests.Load() != 1 {
		t.Fatalf("answer %q, ended %+v after %d requests", answer, last, requests.Load())
	}
}

// A server asked for one choice that sends others (n > 1 of its own accord) has the first
// shown alone: the others are counted and said once, never woven into the reply.
func TestChoicesOtherThanTheFirstAreCountedNotShown(t *testing.T) {
	t.Parallel()
	choice := func(index int, delta, finish string) string {
		return fmt.Sprintf(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"m","choices":[{"index":%d,"delta":{%s},"finish_reason":%s}]}`+"\n\n", index, delta, finish)
	}
	stream := choice(0, `"role":"assistant","content":""`, "null") + choice(1, `"role":"assistant","content":""`, "null") +
		choice(0, `"content":"Paris is "`, "null") + choice(1, `"content":"La capitale "`, "null") +
		choice(0, `"content":"the capital."`, "null") + choice(2, `"content":"Lyon? "`, "null") +
		choice(1, `"content":"est Paris."`, "null") +
		choice(0, ``, `"stop"`) + choice(1, ``, `"stop"`) + "data: [DONE]\n\n"
	url, _ := served(t, nil, []byte(stream))
	_, answer, last := run(url)
	if last.Kind != chat.EventFinished || answer != "Paris is the capital." || last.OtherChoices != 2 {
		t.Fatalf("answer %q, ended %+v", answer, last)
	}
	notes := chat.RunNotes(last, "/tools turns them on")
	if want := []string{"the endpoint sent 2 more choices than the one asked for; only the first is shown and kept"}; !reflect.DeepEqual(notes, want) {
		t.Errorf("notes %q, want %q", notes, want)
	}
}

// A stream sent with Content-Encoding: deflate (zlib-wrapped, as HTTP means it, or raw, as
// some servers send it) is decoded, as gzip is, and read at the first request.
func TestADeflatedStreamIsDecoded(t *testing.T) {
	t.Parallel()
	stream := chunkLine(`"role":"assistant","content":"Deflated "`, "null") + "\n\n" +
		chunkLine(`"content":"and read."`, `"stop"`) + "\n\ndata: [DONE]\n\n"
	for name, compress := range map[string]func(io.Writer) io.WriteCloser{
		"zlib": func(w io.Writer) io.WriteCloser { return zlib.NewWriter(w) },
		"raw": func(w io.Writer) io.WriteCloser {
			fw, _ := flate.NewWriter(w, flate.DefaultCompression)
			return fw
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var body bytes.Buffer
			w := compress(&body)
			io.WriteString(w, stream)
			w.Close()
			url, requests := served(t, map[string]string{"Content-Encoding": "deflate"}, body.Bytes())
			_, answer, last := run(url)
			if last.Kind != chat.EventFinished || answer != "Deflated and read." || requests.Load() != 1 {
				t.Fatalf("answer %q, ended %+v after %d requests", answer, last, requests.Load())
			}
		})
	}
}

// A reply that opened <think> and ended without closing it has no answer: it fails, saying
// so, and is not sent again (the same request would think the same way).
func TestAThinkNeverClosedFailsSayingSo(t *testing.T) {
	t.Parallel()
	stream := chunkLine(`"role":"assistant","content":""`, "null") + "\n\n" +
		chunkLine(`"content":"<think>\nThe user wants a haiku. "`, "null") + "\n\n" +
		chunkLine(`"content":"Five, seven, five."`, "null") + "\n\n" +
		chunkLine(``, `"stop"`) + "\n\ndata: [DONE]\n\n"
	url, requests := served(t, nil, []byte(stream))
	reasoning, answer, last := run(url)
	if last.Kind != chat.EventFailed || last.Class.Class != chat.EmptyResponse || last.Class.Retryable || requests.Load() != 1 {
		t.Fatalf("ended %+v after %d requests", last, requests.Load())
	}
	if want := "the stream ended without any reply text: all of it was thinking, and its <think> was never closed"; last.Class.Message != want {
		t.Errorf("message %q, want %q", last.Class.Message, want)
	}
	if answer != "" || reasoning != "\nThe user wants a haiku. Five, seven, five." {
		t.Errorf("answer %q, reasoning %q", answer, reasoning)
	}
}

// toolStream is a stream of one tool call, its name in pieces (each repeating the call's id,
// as some servers do) and its arguments in two, ended with finish.
func toolStream(args, finish string) string {
	piece := func(tc string) string {
		return `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[` + tc + `]},"finish_reason":null}]}` + "\n\n"
	}
	half := len(args) / 2
	return chunkLine(`"role":"assistant","content":null`, "null") + "\n\n" +
		piece(`{"index":0,"id":"call_7","type":"function","function":{"name":"get_","arguments":""}}`) +
		piece(`{"index":0,"id":"call_7","function":{"name":"wea"}}`) +
		piece(`{"index":0,"function":{"name":"ther"}}`) +
		piece(`{"index":0,"function":{"arguments":`+quote(args[:half])+`}}`) +
		piece(`{"index":0,"function":{"arguments":`+quote(args[half:])+`}}`) +
		chunkLine(``, finish) + "\n\ndata: [DONE]\n\n"
}

// A call is judged whole by what it holds: a name and arguments that read as JSON, in a
// stream that ended cleanly. Some Ollama and vLLM builds end such a call with
// finish_reason "stop"; it is run all the same. Its pieces merge by index: a name in three
// pieces is one call.
func TestAWholeToolCallIsJudgedByItsContent(t *testing.T) {
	t.Parallel()
	want := []chat.ToolCall{{ID: "call_7", Function: "get_weather", Arguments: `{"city":"Oslo"}`}}
	for _, finish := range []string{`"tool_calls"`, `"stop"`} {
		url, _ := served(t, nil, []byte(toolStream(`{"city":"Oslo"}`, finish)))
		events := collect(t, testClient(Endpoint{BaseURL: url, Model: "m"}), context.Background())
		last := events[len(events)-1]
		if last.Kind != chat.EventFinished || !reflect.DeepEqual(last.Calls, want) || !reflect.DeepEqual(last.ToolCalls, []string{"get_weather"}) {
			t.Fatalf("finish %s: ended %+v", finish, last)
		}
		// The pieces shown while streaming name one call, once.
		var ids []string
		name := ""
		for _, ev := range events {
			if ev.Kind == chat.EventToolCall {
				if ev.Call.ID != "" {
					ids = append(ids, ev.Call.ID)
				}
				name += ev.Call.Function
			}
		}
		if !reflect.DeepEqual(ids, []string{"call_7"}) || name != "get_weather" {
			t.Errorf("finish %s: the pieces start calls %q, name %q", finish, ids, name)
		}
	}
	// Arguments that do not read as JSON, with no tool_calls finish, are a call cut short:
	// never run.
	url, _ := served(t, nil, []byte(toolStream(`{"city":"Os`, `"stop"`)))
	last := lastEvent(t, testClient(Endpoint{BaseURL: url, Model: "m"}).Stream(context.Background(), hello))
	if len(last.Calls) != 0 {
		t.Fatalf("a call with cut arguments is whole: %+v", last)
	}
	url, _ = served(t, nil, []byte(toolStream(`{"city":"Oslo"}`, `"length"`)))
	if last := lastEvent(t, testClient(Endpoint{BaseURL: url, Model: "m"}).Stream(context.Background(), hello)); len(last.Calls) != 0 {
		t.Fatalf("a call ended by the token limit is whole: %+v", last)
	}
}
