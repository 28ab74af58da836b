package demo

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// /demo tool makes the next reply ask for a call, streamed in OpenAI's exact shape: the first
// delta has the index, id, type and name with empty arguments, then the arguments come in
// fragments, then an empty delta with finish_reason tool_calls, usage and [DONE].
func TestToolCommandStreamsACallAsOpenAIDoes(t *testing.T) {
	t.Parallel()
	s, c := start(t, Options{})
	said, err := s.Command(`/demo tool read_file {"path":"main.go"}`)
	if err != nil || said != `demo: the next reply asks to call read_file {"path":"main.go"}` {
		t.Fatalf("%q, %v", said, err)
	}
	resp := postChat(t, s, c, chatBody(t, true, true, Message{Role: "user", Content: "read it"}))
	events, err := readEvents(resp.Body)
	if err != io.EOF {
		t.Fatal(err)
	}
	first := strings.TrimPrefix(events[0], "data: ")
	if want := `"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_parleydemo000001_0","type":"function","function":{"name":"read_file","arguments":""}}]},"logprobs":null,"finish_reason":null}]}`; !strings.HasSuffix(first, want) {
		t.Errorf("first chunk %s\nwant its end %s", first, want)
	}
	var args strings.Builder
	finish := ""
	for _, ev := range events[1 : len(events)-1] {
		ch := decodeChunk(t, ev)
		if len(ch.Choices) == 0 {
			continue // usage
		}
		var d struct {
			ToolCalls []struct {
				Index    int     `json:"index"`
				ID       *string `json:"id"`
				Function struct {
					Name      *string `json:"name"`
					Arguments string  `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		}
		if err := json.Unmarshal(ch.Choices[0].Delta, &d); err != nil {
			t.Fatal(err)
		}
		for _, tc := range d.ToolCalls {
			if tc.Index != 0 || tc.ID != nil || tc.Function.Name != nil {
				t.Errorf("a later piece repeats the call's head: %s", ev)
			}
			args.WriteString(tc.Function.Arguments)
		}
		if f := ch.Choices[0].FinishReason; f != nil {
			finish = *f
		}
	}
	if args.String() != `{"path":"main.go"}` || finish != "tool_calls" || events[len(events)-1] != "data: [DONE]" {
		t.Errorf("arguments %q, finish %q, last %q", args.String(), finish, events[len(events)-1])
	}
	if _, err := s.Command("/demo tool read_file {path}"); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Errorf("bad arguments: %v", err)
	}
}

// After a tool's result, the demo says what came back.
func TestRepliesWithTheToolsResult(t *testing.T) {
	t.Parallel()
	got := Reply([]Message{{Role: "user", Content: "add"}, {Role: "assistant"}, {Role: "tool", Content: "The sum of 2 and 3 is 5."}})
	if got != "The tool answered:\n\n> The sum of 2 and 3 is 5." {
		t.Errorf("%q", got)
	}
}
