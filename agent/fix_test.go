package agent

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"parley/internal/chat"
	"parley/retry"
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
	t.Parallel()
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
	disabled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"type":"error","error":{"type":"invalid_request_error","message":"This organization has been disabled."}}`))
	}))
	defer disabled.Close()
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
		{"a wrong key sent", Endpoint{BaseURL: wantsKey.URL + "/v1", APIKey: "sk-wrong", KeyEnv: "WORK_KEY"}, 1, false,
			"Invalid API Key: the server rejected the key in WORK_KEY; check its value, or name another variable with --api-key-env"},
		// A permission is no missing key, even when none was sent.
		{"not permitted", Endpoint{BaseURL: disabled.URL + "/v1"}, 1, false, "This organization has been disabled."},
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

// A server that cannot take the tools parley sent answers the same every time: the run fails
// after one request, and the fix says how to turn the tools off or which flag lets the server
// take them. Without tools sent, the same answer is left in the server's words.
func TestToolsAServerCannotTakeNameTheFix(t *testing.T) {
	t.Parallel()
	weather := json.RawMessage(`{"type":"function","function":{"name":"weather","description":"the weather in a city",` +
		`"parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}`)
	for _, c := range []struct{ name, body string }{
		{"llama-server without tool support", `{"error":{"code":500,"message":"Unsupported param: tools","type":"server_error"}}`},
		{"llama-server without --jinja", `{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				w.Write([]byte(c.body))
			}))
			defer srv.Close()
			ep := Endpoint{BaseURL: srv.URL + "/v1", Model: "m"}
			said := retry.Classify(retry.Failure{Phase: retry.Status, Status: 500, Body: []byte(c.body), Now: time.Now()}).Message

			events := collect(t, testClient(ep).WithTools([]json.RawMessage{weather}), context.Background())
			cls, n := events[len(events)-1].Class, count(events, chat.EventStarted)
			if n != 1 || cls.Retryable || cls.Class != chat.BadRequest {
				t.Fatalf("%s retryable=%v after %d requests, want a bad request after one", cls.Class, cls.Retryable, n)
			}
			if want := said + ": " + toolsFix; cls.Message != want {
				t.Errorf("message %q,\nwant %q", cls.Message, want)
			}

			if cls, _ := lastFailure(t, ep); cls.Message != said {
				t.Errorf("without tools sent: %q, want the server's own %q", cls.Message, said)
			}
		})
	}
}
