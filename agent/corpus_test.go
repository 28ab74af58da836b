package agent

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"parley/agent/chat"
	"parley/retry"
	"parley/retry/retrytest"
)

// sseBody gives a corpus stream body SSE framing where the fixture stripped it (one JSON
// object per line).
func sseBody(body string) string {
	var b strings.Builder
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "{") || strings.HasPrefix(line, "[") {
			b.WriteString("data: " + line + "\n\n")
			continue
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// replay serves one corpus entry exactly as written: status, headers and body, or the stream
// body after a 200, or a connection failure.
func replay(e retrytest.CorpusEntry) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// Reading the request lets the server notice when the client goes away.
		io.Copy(io.Discard, r.Body)
		switch e.Phase {
		case "connect":
			if strings.Contains(e.Body, "awaiting headers") || strings.Contains(e.Body, "timeout") {
				<-r.Context().Done()
				return
			}
			hijackReset(w)
		case "in_stream":
			for k, v := range e.Headers {
				w.Header().Set(k, v)
			}
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.Write([]byte(sseBody(e.Body)))
			w.(http.Flusher).Flush()
			if !strings.Contains(e.Body, "data:") && !strings.Contains(e.Body, "{") {
				// Only keep-alive comments: the server holds the request open.
				<-r.Context().Done()
			}
		default:
			for k, v := range e.Headers {
				w.Header().Set(k, v)
			}
			w.WriteHeader(e.Status)
			w.Write([]byte(e.Body))
		}
	}
}

// hijackReset closes the connection with a TCP reset before any response is sent.
func hijackReset(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// oneAttempt is a policy that never retries, so the first failure's classification is seen.
func oneAttempt() retry.Policy {
	p := retry.DefaultPolicy()
	p.MaxAttempts = 1
	return p
}

func TestCorpusReplayedOverHTTP(t *testing.T) {
	replayCorpus(t, retrytest.Corpus(t), nil)
}

// TestProviderCorpusReplayedOverHTTP replays the repository's own corpus. Every entry, over
// HTTP and through the agent's own stream reader, must be classified as retry classifies its
// recorded form: the agent loses nothing of what was sent. Entries outside the held-out fifth
// must also have their expected class; the held-out ones are measured in package retry, and
// nothing of them is printed here, so that they tune nothing.
func TestProviderCorpusReplayedOverHTTP(t *testing.T) {
	replayCorpus(t, retrytest.ProviderCorpus(t), retrytest.Holdout(t))
}

// replayCorpus serves each entry from a local server and checks the run's classification.
func replayCorpus(t *testing.T, entries []retrytest.CorpusEntry, holdout map[string]bool) {
	// The agent logs each failure's message; a held-out entry's must not be shown.
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.DiscardHandler))
	t.Cleanup(func() { slog.SetDefault(prev) })
	for _, e := range entries {
		t.Run(e.ID, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(replay(e))
			defer srv.Close()
			c := NewClient(Endpoint{
				BaseURL: srv.URL + "/v1", Model: "m",
				HeaderTimeout: 300 * time.Millisecond, FirstDeltaTimeout: 500 * time.Millisecond,
			}, chat.SystemClock{}, oneAttempt())
			var last chat.Event
			for ev := range c.Stream(context.Background(), []chat.Message{{Role: "user", Content: "hi"}}) {
				last = ev
			}
			if last.Kind != chat.EventFailed {
				t.Fatalf("%s: run ended with event %d, want failed", e.ID, last.Kind)
			}
			got := last.Class
			want := retry.Classify(recorded(t, e))
			if got.Class != want.Class || got.Retryable != want.Retryable {
				t.Errorf("%s: over HTTP %s retryable=%v, recorded %s retryable=%v", e.ID, got.Class, got.Retryable, want.Class, want.Retryable)
			}
			if holdout[e.ID] {
				return
			}
			if string(got.Class) != e.ExpectedClass || got.Retryable != e.Retryable {
				t.Errorf("%s (%s): got %s retryable=%v by %s (%q), want %s retryable=%v",
					e.ID, e.Scenario, got.Class, got.Retryable, got.Rule, got.Message, e.ExpectedClass, e.Retryable)
			}
		})
	}
}

// recorded is the failure an entry records, as retry.ParseRaw reads it.
func recorded(t *testing.T, e retrytest.CorpusEntry) retry.Failure {
	t.Helper()
	raw, ok := e.Raw()
	if !ok {
		return retry.Failure{Phase: retry.BeforeHeaders, Err: errors.New(e.Body), Now: time.Now()}
	}
	f, err := retry.ParseRaw([]byte(raw))
	if err != nil {
		t.Fatalf("%s: %v", e.ID, err)
	}
	f.Now = time.Now()
	return f
}
