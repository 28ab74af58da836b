package agent

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"parley/internal/chat"
)

// lastFailure runs one request against ep and returns the failure it ends with, and the
// number of requests sent.
func lastFailure(t *testing.T, ep Endpoint) (chat.Classification, int) {
	t.Helper()
	events := collect(t, testClient(ep), context.Background())
	last := events[len(events)-1]
	if last.Kind != chat.EventFailed {
		t.Fatalf("run ended with %+v, want a failure", last)
	}
	return last.Class, count(events, chat.EventStarted)
}

func TestFailuresNameTheFix(t *testing.T) {
	notFound := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "File Not Found", http.StatusNotFound)
	}))
	defer notFound.Close()
	wantsKey := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":{"code":401,"message":"Invalid API Key","type":"authentication_error"}}`))
	}))
	defer wantsKey.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close() // nothing listens there now

	for _, c := range []struct {
		name      string
		ep        Endpoint
		requests  int
		retryable bool
		want      string
	}{
		{"the chat path in the base URL", Endpoint{BaseURL: notFound.URL + "/chat/completions"}, 1, false,
			"File Not Found at " + notFound.URL + "/chat/completions/chat/completions: the base URL should end in /v1: use " + notFound.URL + "/v1"},
		{"no /v1", Endpoint{BaseURL: notFound.URL + "/"}, 1, false,
			"File Not Found at " + notFound.URL + "/chat/completions: the base URL should end in /v1: use " + notFound.URL + "/v1"},
		{"a 404 at /v1", Endpoint{BaseURL: notFound.URL + "/v1"}, 1, false,
			"File Not Found at " + notFound.URL + "/v1/chat/completions: no chat endpoint there: check the base URL"},
		{"nothing listening here", Endpoint{BaseURL: "http://" + closed + "/v1"}, 3, false,
			"nothing is listening on " + closed + " (connection refused): is the server running? Start it, then try again"},
		{"no key sent", Endpoint{BaseURL: wantsKey.URL + "/v1", KeyEnv: "LLAMA_KEY"}, 1, false,
			"Invalid API Key: no API key was sent; set LLAMA_KEY to the server's key (--api-key-env names another variable)"},
		{"a wrong key sent", Endpoint{BaseURL: wantsKey.URL + "/v1", APIKey: "sk-wrong"}, 1, false, "Invalid API Key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.ep.Model = "m"
			cls, n := lastFailure(t, c.ep)
			if cls.Message != c.want || cls.Retryable != c.retryable || n != c.requests {
				t.Fatalf("message %q, retryable %v after %d requests;\nwant %q, %v after %d", cls.Message, cls.Retryable, n,
					c.want, c.retryable, c.requests)
			}
			if strings.Contains(cls.Message, "sk-") {
				t.Fatal("the key is in the message")
			}
		})
	}
}
