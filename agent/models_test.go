package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"parley/internal/chat"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
	"parley/retry"
)

// What the endpoint says of its models: the list /model shows, and a model's context window.

func TestModelsListsTheEndpointsModelsSorted(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{Model: "zeta", MoreModels: []string{"alpha", "mid"}})
	c := NewClient(Endpoint{BaseURL: srv.URL()}, chat.SystemClock{}, retry.DefaultPolicy())
	got, err := c.Models(context.Background())
	if err != nil || !slices.Equal(got, []string{"alpha", "mid", "zeta"}) {
		t.Fatalf("models %v, %v", got, err)
	}
	unkeyed := NewClient(Endpoint{BaseURL: srv.URL(), KeyErr: "NOPE is not set"}, chat.SystemClock{}, retry.DefaultPolicy())
	var le *ListError
	if _, err := unkeyed.Models(context.Background()); !errors.As(err, &le) || le.Class.Class != chat.CredentialsUnresolved ||
		le.Class.Message != "NOPE is not set" {
		t.Fatalf("without a key: %v", err)
	}
	if srv.Requests() != 0 {
		t.Fatalf("%d chat requests for a list of models", srv.Requests())
	}
}

// Listing the models fails as a run would, classified and with the fix named: a server that
// is down, one still loading its model, a path that is not an API's.
func TestModelsFailuresAreClassified(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String() + "/v1"
	l.Close()
	loading := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`)
	}))
	defer loading.Close()
	for _, tc := range []struct {
		name, url string
		class     chat.Class
		retryable bool
		says      string
	}{
		{"down", down, chat.Network, false, "nothing is listening on " + l.Addr().String()},
		{"loading", loading.URL + "/v1", chat.Overloaded, true, "Loading model"},
	} {
		c := NewClient(Endpoint{BaseURL: tc.url}, chat.SystemClock{}, retry.DefaultPolicy())
		_, err := c.Models(context.Background())
		var le *ListError
		if !errors.As(err, &le) || le.Class.Class != tc.class || le.Class.Retryable != tc.retryable || !strings.Contains(le.Class.Message, tc.says) {
			t.Errorf("%s: %v (%+v)", tc.name, err, le)
		}
	}
}

// factsServer answers the paths a server describes its model at, each with a body in the
// server's own shape; any other path is a 404, as on a server that lacks it.
func factsServer(t *testing.T, bodies map[string]any) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := bodies[r.Method+" "+r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// The context window is read from what the server says, each in its own words, else from the
// profile, else from the table of known models; and the source is named.
func TestContextWindowFromWhatTheServerSays(t *testing.T) {
	t.Parallel()
	llamaModels := map[string]any{"object": "list", "data": []any{map[string]any{"id": "tiny.gguf", "object": "model", "owned_by": "llamacpp",
		"meta": map[string]any{"vocab_type": 1, "n_vocab": 32000, "n_ctx": 1024, "n_ctx_train": 4096}}}}
	for _, tc := range []struct {
		name, model string
		bodies      map[string]any
		profile     int
		window      int
		source      string
		prefill     bool
	}{
		{"llama-server /props", "tiny.gguf", map[string]any{
			"GET /props":     map[string]any{"default_generation_settings": map[string]any{"n_ctx": 1024}, "total_slots": 4, "modalities": map[string]bool{"vision": false}},
			"GET /v1/models": llamaModels,
		}, 0, 1024, "llama-server", true},
		{"llama-server /v1/models", "tiny.gguf", map[string]any{"GET /v1/models": llamaModels}, 0, 1024, "llama-server", false},
		{"OpenRouter context_length", "qwen/qwen3-32b", map[string]any{"GET /v1/models": map[string]any{"data": []any{
			map[string]any{"id": "openai/gpt-4o", "context_length": 128000},
			map[string]any{"id": "qwen/qwen3-32b", "name": "Qwen: Qwen3 32B", "context_length": 40960, "architecture": map[string]any{"modality": "text->text"}},
		}}}, 0, 40960, "endpoint", false},
		{"vLLM max_model_len", "Qwen/Qwen2.5-7B-Instruct", map[string]any{"GET /v1/models": map[string]any{"object": "list", "data": []any{
			map[string]any{"id": "Qwen/Qwen2.5-7B-Instruct", "object": "model", "owned_by": "vllm", "root": "Qwen/Qwen2.5-7B-Instruct", "max_model_len": 32768},
		}}}, 0, 32768, "vLLM", false},
		{"Ollama num_ctx", "llama3.2:latest", map[string]any{
			"GET /v1/models": map[string]any{"object": "list", "data": []any{map[string]any{"id": "llama3.2:latest", "object": "model", "owned_by": "library"}}},
			"POST /api/show": map[string]any{"parameters": "num_ctx                        8192\nstop                           \"<|eot_id|>\"", "capabilities": []string{"completion", "tools"}},
		}, 0, 8192, "Ollama", false},
		{"the server over the profile", "tiny.gguf", map[string]any{"GET /v1/models": llamaModels}, 4096, 1024, "llama-server", false},
		{"the profile", "house-model", map[string]any{}, 4096, 4096, "profile", false},
		{"the table", "gpt-4o-mini", map[string]any{}, 0, 128000, "known models", false},
		{"nothing says", "house-model", map[string]any{}, 0, 0, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := factsServer(t, tc.bodies) + "/v1"
			f := testClient(Endpoint{BaseURL: base, Model: tc.model, ContextTokens: tc.profile}).Facts(context.Background())
			if f.Window != tc.window || f.WindowSource != tc.source || f.Prefill != tc.prefill {
				t.Errorf("window %d from %q, prefill %v; want %d from %q, %v", f.Window, f.WindowSource, f.Prefill, tc.window, tc.source, tc.prefill)
			}
		})
	}
}

// A short conversation asks the server nothing before it is sent; a long one asks once.
func TestFactsAskedOnlyWhenTheWindowMatters(t *testing.T) {
	t.Parallel()
	var asked atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			asked.Add(1)
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(sseBody(`{"choices":[{"index":0,"delta":{"content":"ok"}}]}` + "\n" + `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\ndata: [DONE]")))
	}))
	defer ts.Close()
	c := testClient(Endpoint{BaseURL: ts.URL + "/v1", Model: "m"})
	runEvents(t, c, conversation(2))
	if asked.Load() != 0 {
		t.Fatalf("a short conversation asked the server %d times", asked.Load())
	}
	long := conversation(200)
	runEvents(t, c, long)
	runEvents(t, c, long)
	if asked.Load() != 3 { // /props, /v1/models, /api/show: once
		t.Fatalf("asked %d times for two long conversations, want 3", asked.Load())
	}
}

// The demo says its window where llama-server says it, so the client reads it as llama-server's;
// without one it says none.
func TestDemoSaysItsWindowAsLlamaServerDoes(t *testing.T) {
	t.Parallel()
	for _, window := range []int{1024, 0} {
		srv := demotest.Start(t, demo.Options{Window: window})
		f := testClient(Endpoint{BaseURL: srv.URL(), Model: demo.DefaultModel}).Facts(context.Background())
		source := map[int]string{1024: "llama-server", 0: ""}[window]
		if f.Window != window || f.WindowSource != source {
			t.Errorf("Window %d: facts say %d from %q", window, f.Window, f.WindowSource)
		}
	}
}
