package agent

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"parley/internal/chat"
)

// A key the server echoes, in every shape a reply or an error takes, leaves the client
// redacted: the events are what the screen, print mode, the history and the exports receive.

const echoedKey = "sk-proj-echoed0123456789abcdef"

// answering serves every request with status, content type and body on 127.0.0.1.
func answering(t *testing.T, status int, contentType, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// sse is an event stream of the data lines, ended by [DONE].
func sse(lines ...string) string {
	return strings.Join(lines, "\n\n") + "\n\ndata: [DONE]\n\n"
}

// perCharacter streams text one character a chunk, in field (content or reasoning_content).
func perCharacter(field, text string) []string {
	var lines []string
	for _, c := range text {
		lines = append(lines, chunkLine(quote(field)+":"+quote(string(c)), "null"))
	}
	return lines
}

func TestAnEchoedKeyLeavesTheClientRedacted(t *testing.T) {
	t.Parallel()
	stop := chunkLine("", `"stop"`)
	rows := []struct {
		name, contentType, body string
		// answer and thinking are what the client hands on.
		answer, thinking string
	}{
		{"whole in one delta", "text/event-stream",
			sse(chunkLine(`"content":"Your key is `+echoedKey+`."`, "null"), stop), "Your key is [redacted].", ""},
		{"one character a delta", "text/event-stream",
			sse(append(perCharacter("content", "Your key is "+echoedKey+", sk-proj is not."), stop)...), "Your key is [redacted], sk-proj is not.", ""},
		{"in reasoning_content", "text/event-stream",
			sse(append(append(perCharacter("reasoning_content", "The key: "+echoedKey), perCharacter("content", "Done.")...), stop)...),
			"Done.", "The key: [redacted]"},
		{"inline thinking", "text/event-stream",
			sse(append(perCharacter("content", "<think>"+echoedKey+"</think>Done."), stop)...), "Done.", "[redacted]"},
		{"a whole chat.completion", "application/json",
			`{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Key ` +
				echoedKey + `","reasoning_content":"saw ` + echoedKey + `"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":10}}`,
			"Key [redacted]", "saw [redacted]"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			c := testClient(Endpoint{BaseURL: answering(t, 200, row.contentType, row.body), Model: "m", APIKey: echoedKey})
			events := collect(t, c, context.Background())
			if last := events[len(events)-1]; last.Kind != chat.EventFinished {
				t.Fatalf("ended %+v", last)
			}
			if got := text(events); got != row.answer {
				t.Errorf("answer %q, want %q", got, row.answer)
			}
			if got := thought(events); got != row.thinking {
				t.Errorf("thinking %q, want %q", got, row.thinking)
			}
		})
	}
}

// A text/plain error body is cut to an excerpt: a key straddling the cut is redacted first,
// so not even its start is left.
func TestAKeyStraddlingTheCutOfAnErrorBody(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("upstream said no. ", 20)[:290] + echoedKey + " and more after it"
	c := testClient(Endpoint{BaseURL: answering(t, http.StatusBadGateway, "text/plain", body), Model: "m", APIKey: echoedKey})
	last := collect(t, c, context.Background())
	end := last[len(last)-1]
	if end.Kind != chat.EventFailed || !strings.HasPrefix(end.Class.Message, "upstream said no.") {
		t.Fatalf("ended %+v", end)
	}
	if strings.Contains(end.Class.Message, echoedKey[:4]) {
		t.Errorf("the message keeps the key's start: %q", end.Class.Message)
	}
}

// Only secrets are redacted: a configured header whose name says key, not "openai" or "true";
// and a key shorter than eight characters redacts no word.
func TestOnlySecretsAreRedactedInServerMessages(t *testing.T) {
	t.Parallel()
	const portkeyKey = "pk-portkey-0123"
	body := `{"error":{"message":"provider openai (stream true) refused key ` + portkeyKey + `; a test token is no key","type":"invalid_request_error","code":"invalid_api_key"}}`
	url := answering(t, http.StatusUnauthorized, "application/json", body)
	c := testClient(Endpoint{BaseURL: url, Model: "m", APIKey: "test",
		Headers: map[string]string{"x-portkey-provider": "openai", "x-portkey-api-key": portkeyKey, "x-portkey-stream": "true"}})
	events := collect(t, c, context.Background())
	want := "provider openai (stream true) refused key [redacted]; a test token is no key: " +
		"the server rejected the key in OPENAI_API_KEY; check its value, or name another variable with --api-key-env"
	if got := events[len(events)-1].Class.Message; got != want {
		t.Errorf("message %q\nwant    %q", got, want)
	}
}

// A tool call's arguments carrying the key, split across deltas, are redacted in the pieces
// shown and in the whole call that would run.
func TestToolCallArgumentsAreRedacted(t *testing.T) {
	t.Parallel()
	args := `{"message":"` + echoedKey + `"}`
	lines := []string{chunkLine(`"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"echo","arguments":""}}]`, "null")}
	for _, c := range args {
		lines = append(lines, chunkLine(`"tool_calls":[{"index":0,"function":{"arguments":`+quote(string(c))+`}}]`, "null"))
	}
	lines = append(lines, chunkLine("", `"tool_calls"`))
	c := testClient(Endpoint{BaseURL: answering(t, 200, "text/event-stream", sse(lines...)), Model: "m", APIKey: echoedKey})
	events := collect(t, c, context.Background())
	var pieces strings.Builder
	for _, ev := range events {
		if ev.Kind == chat.EventToolCall {
			pieces.WriteString(ev.Call.Arguments)
		}
	}
	end := events[len(events)-1]
	if want := `{"message":"[redacted]"}`; pieces.String() != want || len(end.Calls) != 1 || end.Calls[0].Arguments != want {
		t.Errorf("pieces %q, calls %+v", pieces.String(), end.Calls)
	}
}

// A server that lists the key among its models, or echoes it in the error of the listing,
// has it redacted there too: print mode says which models a server serves.
func TestModelsAreListedRedacted(t *testing.T) {
	t.Parallel()
	list := answering(t, 200, "application/json", `{"object":"list","data":[{"id":"m","object":"model"},{"id":"`+echoedKey+`","object":"model"}]}`)
	got, err := testClient(Endpoint{BaseURL: list, APIKey: echoedKey}).Models(context.Background())
	if err != nil || len(got) != 2 || got[0] != "[redacted]" || got[1] != "m" {
		t.Errorf("models %q, %v", got, err)
	}
	refused := answering(t, http.StatusUnauthorized, "application/json", `{"error":{"message":"Incorrect API key provided: `+echoedKey+`.","type":"invalid_request_error","code":"invalid_api_key"}}`)
	_, err = testClient(Endpoint{BaseURL: refused, APIKey: echoedKey}).Models(context.Background())
	if err == nil || strings.Contains(err.Error(), echoedKey[:12]) || !strings.Contains(err.Error(), "Incorrect API key provided: [redacted]: the server rejected the key in OPENAI_API_KEY") {
		t.Errorf("error %v", err)
	}
}
