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

// A stream arriving faster than it is read: the connection's buffers hold many lines when
// the run is cancelled. The run ends at the cancel, not after reading out what is buffered.
func TestCancelStopsReadingWhatIsBuffered(t *testing.T) {
	t.Parallel()
	var chunks strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&chunks, `data: {"id":"chatcmpl-9xQ2","object":"chat.completion.chunk","created":1796123115,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0aa8d3e20b","choices":[{"index":0,"delta":{"content":"word%d "},"logprobs":null,"finish_reason":null}]}`+"\n\n", i)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, chunks.String())
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the rest never comes: only what is buffered could be read
	}))
	t.Cleanup(srv.Close)
	c := testClient(Endpoint{BaseURL: srv.URL, Model: "gpt-4o-mini"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := c.Stream(ctx, []chat.Message{{Role: "user", Content: "hello"}})
	after, queued, cancelled := 0, 0, false
	var last chat.Event
	for ev := range events {
		last = ev
		if ev.Kind != chat.EventDelta {
			continue
		}
		if cancelled {
			after++
		} else {
			cancel()
			queued, cancelled = len(events), true // emitted before the cancel, waiting to be read
		}
	}
	// Besides what waited in the channel, one delta may be on its way when the cancel comes
	// and the splitter hands on what it holds; the lines in the buffers are not read.
	if last.Kind != chat.EventCancelled || after > queued+2 {
		t.Fatalf("ended %v with %d deltas after the cancel, %d of them emitted before it", last.Kind, after, queued)
	}
}
