package agent

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"parley/internal/chat"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// prefillServer answers as llama-server does a request whose last message is the assistant's:
// it continues it, and streams the message back first, joined to the first new words (as
// llama-server b7000 does). It serves /props, as llama-server does. sent keeps each request's
// messages.
func prefillServer(t *testing.T) (base string, sent func() [][]chat.Message) {
	t.Helper()
	var mu sync.Mutex
	var got [][]chat.Message
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/props" {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			io.WriteString(w, `{"default_generation_settings":{"n_ctx":1024},"total_slots":4,"modalities":{"vision":false,"video":false,"audio":false}}`)
			return
		}
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		var req struct{ Messages []chat.Message }
		json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		got = append(got, req.Messages)
		mu.Unlock()
		prefix := ""
		if last := req.Messages[len(req.Messages)-1]; last.Role == chat.RoleAssistant {
			prefix = last.Content
		}
		chunk := func(delta string) string {
			return `data: {"choices":[{"finish_reason":null,"index":0,"delta":` + delta + `}],"created":1796123115,"id":"chatcmpl-uzAU","model":"models/llama-2-tiny-random.gguf","system_fingerprint":"b1-de3ff81","object":"chat.completion.chunk"}` + "\n\n"
		}
		text, _ := json.Marshal(prefix + " Rottnest")
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, chunk(`{"role":"assistant","content":null}`)+chunk(`{"content":`+string(text)+`}`)+chunk(`{"content":" Island."}`)+
			`data: {"choices":[{"finish_reason":"stop","index":0,"delta":{}}],"created":1796123115,"id":"chatcmpl-uzAU","model":"models/llama-2-tiny-random.gguf","object":"chat.completion.chunk"}`+"\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(ts.Close)
	return ts.URL + "/v1", func() [][]chat.Message {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
}

var cutReply = []chat.Message{
	{Role: chat.RoleUser, Content: "tell me about quokkas"},
	{Role: chat.RoleAssistant, Content: "Quokkas are small marsupials that live on"},
}

// A server that continues a final assistant message is sent the cut reply as it is, with no
// instruction; its echo of the reply is taken out, so only the new words come back.
func TestContinuedThroughTheServersPrefill(t *testing.T) {
	t.Parallel()
	base, sent := prefillServer(t)
	events := runEvents(t, testClient(Endpoint{BaseURL: base, Model: "tiny"}), cutReply)
	if got := text(events); got != " Rottnest Island." {
		t.Fatalf("continuation %q", got)
	}
	req := sent()[0]
	if len(req) != 2 || req[1].Role != chat.RoleAssistant || req[1].Content != cutReply[1].Content {
		t.Fatalf("sent %+v", req)
	}
}

// Elsewhere the cut reply goes as the assistant's turn with an instruction to go on after it;
// a profile that says the server has no prefill is believed.
func TestContinuedByInstruction(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{})
	events := runEvents(t, testClient(Endpoint{BaseURL: srv.URL(), Model: "m"}), cutReply)
	if last := events[len(events)-1]; last.Kind != chat.EventFinished || text(events) == "" {
		t.Fatalf("events %+v", events)
	}
	got := srv.Received()[0].Messages
	if len(got) != 3 || got[1].Content != cutReply[1].Content || got[2].Role != "user" || got[2].Content != continueInstruction {
		t.Fatalf("sent %+v", got)
	}

	base, sent := prefillServer(t)
	no := false
	runEvents(t, testClient(Endpoint{BaseURL: base, Model: "tiny", Prefill: &no}), cutReply)
	if req := sent()[0]; len(req) != 3 || req[2].Content != continueInstruction {
		t.Fatalf("with prefill = false, sent %+v", req)
	}
}

// The echo is taken out only when it is the whole reply; anything else is the model's.
func TestEchoTakesOutOnlyTheWholeReply(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		deltas []string
		want   string
	}{
		{[]string{"Quokkas are", " small marsupials that live on", " islands."}, " islands."},
		{[]string{"Quokkas are", " shy."}, "Quokkas are shy."},
		{[]string{"Rottnest."}, "Rottnest."},
		{[]string{"Quokkas"}, "Quokkas"}, // the stream ended while it could still be the echo
	} {
		e := echoOf(cutReply)
		var b strings.Builder
		for _, d := range tc.deltas {
			b.WriteString(e.take(d))
		}
		b.WriteString(e.flush())
		if b.String() != tc.want {
			t.Errorf("%q: got %q, want %q", tc.deltas, b.String(), tc.want)
		}
	}
}
