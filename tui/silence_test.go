package tui

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"parley/agent"
	"parley/history/historytest"
	"parley/internal/chat"
	"parley/internal/chat/chattest"
	"parley/retry"
)

// keepAliveServer streams three words, then only keep-alive comments every 50 ms until the
// client leaves: a server stopped mid-reply that keeps its socket.
func keepAliveServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		for _, word := range []string{"One ", "two ", "three "} {
			fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1767225600,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q},\"finish_reason\":null}]}\n\n", word)
		}
		rc.Flush()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(50 * time.Millisecond):
				fmt.Fprint(w, ": keep-alive\n\n")
				rc.Flush()
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// After the first words the status line counts the silence on the screen's clock, keep-alives
// or not; the idle deadline then ends the run as a retryable timeout saying only keep-alives
// came, the words kept.
func TestSilenceIsCountedAndKeepAlivesTimeOut(t *testing.T) {
	t.Parallel()
	clock := chattest.New(clockStart)
	db := historytest.Open(t)
	policy := retry.DefaultPolicy()
	policy.MaxAttempts = 1
	ep := agent.Endpoint{Name: "stalled", BaseURL: keepAliveServer(t), Model: "m", StreamIdleTimeout: 2 * time.Second}
	m, _ := openModel(t, Options{DB: db, Client: agent.NewClient(ep, clock, policy), Session: newSessionIn(t, db), Clock: clock}, 120, 30)
	d := newDriver(t, m)
	d.sendUntilStreaming("what is tcp")
	d.until("the three words", func(m Model) bool { return strings.Contains(plain(m), "One two three") })
	if s := plain(d.m); !strings.Contains(s, "streaming · esc cancels") {
		t.Fatalf("no streaming line right after the words:\n%s", s)
	}
	clock.Advance(45 * time.Second)
	d.send(d.m.spinner.Tick())
	if s := plain(d.m); !strings.Contains(s, "no text for 45s · esc cancels") {
		t.Fatalf("the silence is not counted:\n%s", s)
	}
	d.until("the run to end", func(m Model) bool { return m.active == nil })
	reply := lastReply(t, d.m)
	c := reply.message.Retry
	if c == nil || c.Class != chat.Timeout || !c.Retryable || !strings.Contains(c.Message, "only keep-alives for 2s") {
		t.Fatalf("ended %+v", c)
	}
	if !strings.Contains(reply.text, "One two three") {
		t.Errorf("words not kept: %q", reply.text)
	}
}
