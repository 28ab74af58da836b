package demo

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"parley/internal/chat"
	"parley/retry"
)

// long is a prompt of 250 tokens as the server counts them.
var long = []Message{{Role: "user", Content: strings.Repeat("x", 1000)}}

func TestContextBudgetRejectsInEveryFormAndClassifiesAsOverflow(t *testing.T) {
	for _, form := range Overflows {
		t.Run(string(form), func(t *testing.T) {
			s, c := start(t, Options{ContextTokens: 200, Overflow: form})
			resp := postChat(t, s, c, chatBody(t, true, true, long...))
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			f := retry.Failure{Phase: retry.Status, Status: resp.StatusCode, Body: body}
			if resp.StatusCode == http.StatusOK {
				frame, ok := retry.StreamError(body)
				if !ok {
					t.Fatalf("200 without an error frame: %s", body)
				}
				f = retry.Failure{Phase: retry.InStreamBeforeDelta, Status: 200, Body: frame}
			}
			cls := retry.Classify(f)
			if cls.Class != chat.ContextOverflow || cls.Retryable {
				t.Fatalf("classified %s retryable=%v: %s", cls.Class, cls.Retryable, body)
			}
			if !strings.Contains(string(body), "200") || !strings.Contains(string(body), "250") {
				t.Fatalf("the rejection does not state the budget (200) and the prompt (250): %s", body)
			}
			// Within the budget the server answers.
			short := postChat(t, s, c, chatBody(t, false, false, Message{Role: "user", Content: "hi"}))
			if short.StatusCode != http.StatusOK {
				t.Fatalf("a short prompt got %d", short.StatusCode)
			}
		})
	}
}

func TestContextBudgetLetsQueuedFaultsGoFirst(t *testing.T) {
	s, c := start(t, Options{ContextTokens: 200})
	s.Push(Overloaded())
	if resp := postChat(t, s, c, chatBody(t, false, false, long...)); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("%d, want the queued 503 first", resp.StatusCode)
	}
	resp := postChat(t, s, c, chatBody(t, false, false, long...))
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if e := decodeError(t, body); resp.StatusCode != http.StatusBadRequest || e.Code == nil || *e.Code != "context_length_exceeded" {
		t.Fatalf("%d %s, want the OpenAI form by default", resp.StatusCode, body)
	}
}

func TestContextCommand(t *testing.T) {
	s, c := start(t, Options{})
	out, err := s.Command("context 200 llamacpp")
	if err != nil || !strings.Contains(out, "200 tokens") || !strings.Contains(out, "llamacpp") {
		t.Fatalf("%q %v", out, err)
	}
	resp := postChat(t, s, c, chatBody(t, false, false, long...))
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), `"n_ctx":200`) {
		t.Fatalf("%d %s, want llama.cpp's form", resp.StatusCode, body)
	}
	if _, err := s.Command("context off"); err != nil {
		t.Fatal(err)
	}
	if resp := postChat(t, s, c, chatBody(t, false, false, long...)); resp.StatusCode != http.StatusOK {
		t.Fatalf("after off: %d", resp.StatusCode)
	}
	for _, bad := range []string{"context", "context 0", "context -5", "context many", "context 100 gopher", "context 1 openai extra"} {
		if out, err := s.Command(bad); err == nil || !strings.Contains(err.Error(), "usage: /demo") {
			t.Errorf("%q: %q %v, want an error with the usage", bad, out, err)
		}
	}
}
