package chat

import (
	"errors"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestRedactURL(t *testing.T) {
	for raw, want := range map[string]string{
		"http://127.0.0.1:8080/v1":                                     "http://127.0.0.1:8080/v1",
		"https://u:PASSWORD@api.example.com/v1":                        "https://[redacted]@api.example.com/v1",
		"https://api.example.com/v1?key=SECRET&api-version=2024-10-21": "https://api.example.com/v1?api-version=[redacted]&key=[redacted]",
		"https://only-user@api.example.com/v1":                         "https://[redacted]@api.example.com/v1",
		"://bad url u:pw@host":                                         "://[redacted]@host",
		"http://u:p w@host/v1":                                         "http://[redacted]@host/v1",
	} {
		if got := RedactURL(raw); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestRedactorReplacesOnlySecretsOfEightCharactersOrMore(t *testing.T) {
	r := NewRedactor("sk-test-1234567890", "org-42abc", "token", "ab", "")
	got := r.String("Invalid API key provided: Bearer sk-test-1234567890. X-Org: org-42abc; a token is a token")
	if want := "Invalid API key provided: Bearer [redacted]. X-Org: [redacted]; a token is a token"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := NewRedactor("test").String("a test of the test key"); got != "a test of the test key" {
		t.Errorf("a 4-character key redacts ordinary words: %q", got)
	}
	// A key as JSON writes it inside a string (a raw body, a tool call's arguments).
	if got := NewRedactor(`sk-a/b"<c>1234`).Bytes([]byte(`{"key":"sk-a/b\"\u003cc\u003e1234"}`)); string(got) != `{"key":"[redacted]"}` {
		t.Errorf("escaped: %s", got)
	}
	var none *Redactor
	if none.String("sk-test-1234567890") != "sk-test-1234567890" || none.Tail().Write("x") != "x" {
		t.Error("the nil Redactor changed text")
	}
}

// Which configured values are secrets: the key, headers whose name says so or whose value
// looks like a key, a URL's password and secret query values; never "openai" or "true".
func TestSecretsOfAnEndpoint(t *testing.T) {
	got := Secrets("sk-live-0123456789", "https://me:hunter2-pw@gw.example.com/v1?api-version=2024-10-21&sig=abcdefgh12", map[string]string{
		"Authorization":      "Bearer tok-987654321",
		"x-portkey-api-key":  "pk-portkey-secret",
		"api-key":            "azure-key-0000",
		"x-portkey-provider": "openai",
		"x-stream":           "true",
		"X-Title":            "parley at work",
		"x-custom":           "AbCdEf0123456789XyZw42",
	})
	slices.Sort(got)
	want := []string{"AbCdEf0123456789XyZw42", "Bearer tok-987654321", "abcdefgh12", "azure-key-0000", "hunter2-pw", "pk-portkey-secret",
		"sk-live-0123456789", "tok-987654321"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Secrets = %q\nwant      %q", got, want)
	}
	r := NewRedactor(got...)
	msg := "provider openai: stream=true for parley at work; api-version 2024-10-21 (key azure-key-0000)"
	if got, want := r.String(msg), "provider openai: stream=true for parley at work; api-version 2024-10-21 (key [redacted])"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// A secret split across pieces, down to one character a piece, is still replaced whole; what
// may start a secret waits, and the rest passes at once.
func TestTailCatchesASecretSplitAcrossPieces(t *testing.T) {
	const key = "sk-proj-0123456789abcdef"
	text := "Your key is " + key + ", and sk-proj-0 is not it. sk"
	r := NewRedactor(key)
	for _, size := range []int{1, 2, 3, 7, len(text)} {
		tail, out := r.Tail(), ""
		for i := 0; i < len(text); i += size {
			out += tail.Write(text[i:min(i+size, len(text))])
		}
		out += tail.Flush()
		if want := "Your key is [redacted], and sk-proj-0 is not it. sk"; out != want {
			t.Errorf("pieces of %d: %q", size, out)
		}
	}
	tail := r.Tail()
	if got := tail.Write("hello world"); got != "hello world" {
		t.Errorf("text that starts no secret waited: %q", got)
	}
	if got := tail.Write("; sk-pr"); got != "; " {
		t.Errorf("got %q, want the start of the key held back", got)
	}
}

// Events takes secrets out of every event's words, holds what may start one until the next
// piece of its kind, and passes it on before anything else but usage.
func TestEventsRedactEveryShape(t *testing.T) {
	const key = "sk-proj-0123456789abcdef"
	r := NewRedactor(key)
	in := make(chan Event, 64)
	var sent []Event
	for _, c := range key {
		sent = append(sent, Event{Kind: EventReasoning, Text: string(c)})
	}
	sent = append(sent, Event{Kind: EventUsage})
	for _, c := range "ok " + key {
		sent = append(sent, Event{Kind: EventDelta, Text: string(c)})
	}
	sent = append(sent, Event{Kind: EventToolCall, CallIndex: 0, Call: ToolCall{ID: "call_1", Function: "echo", Arguments: `{"m":"` + key[:5]}},
		Event{Kind: EventToolCall, CallIndex: 0, Call: ToolCall{Arguments: key[5:] + `"}`}},
		Event{Kind: EventToolCall, CallIndex: 1, Call: ToolCall{ID: "call_2", Function: "echo", Arguments: `{"m":"sk-pr`}},
		Event{Kind: EventFinished, Model: "m-" + key, Calls: []ToolCall{{ID: "call_1", Function: "echo", Arguments: `{"m":"` + key + `"}`}},
			Class: Classification{Message: "said " + key}})
	for _, ev := range sent {
		in <- ev
	}
	close(in)
	var thought, answer strings.Builder
	args := map[int]string{}
	var last Event
	for ev := range r.Events(in) {
		switch ev.Kind {
		case EventReasoning:
			thought.WriteString(ev.Text)
		case EventDelta:
			if thought.Len() == 0 {
				t.Error("an answer before the thinking")
			}
			answer.WriteString(ev.Text)
		case EventToolCall:
			args[ev.CallIndex] += ev.Call.Arguments
		}
		last = ev
	}
	if thought.String() != "[redacted]" || answer.String() != "ok [redacted]" {
		t.Errorf("thinking %q, answer %q", thought.String(), answer.String())
	}
	if args[0] != `{"m":"[redacted]"}` || args[1] != `{"m":"sk-pr` {
		t.Errorf("arguments %v", args)
	}
	if last.Kind != EventFinished || last.Model != "m-[redacted]" || last.Calls[0].Arguments != `{"m":"[redacted]"}` ||
		last.Class.Message != "said [redacted]" {
		t.Errorf("last event %+v", last)
	}
	if strings.Contains(sent[len(sent)-1].Calls[0].Arguments, Redacted) {
		t.Error("the sender's calls were changed in place")
	}
}

// What a log line quotes of the world is redacted in it: its message, its attributes, an
// error's text, attributes given once for every line.
func TestHandlerRedactsLogLines(t *testing.T) {
	const key = "sk-logged-0123456789"
	var b strings.Builder
	log := slog.New(NewRedactor(key).Handler(slog.NewTextHandler(&b, nil))).With("server", "notes "+key)
	log.Info("said "+key, "text", "stderr: "+key, "err", errors.New("refused "+key), "n", 3,
		slog.Group("g", "inner", key))
	if got := b.String(); strings.Contains(got, key) || strings.Count(got, Redacted) != 5 || !strings.Contains(got, "n=3") {
		t.Errorf("logged %s", got)
	}
}
