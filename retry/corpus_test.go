package retry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"parley/agent/chat"
	"parley/retry/retrytest"
)

// corpusAdvice is the wait each entry's retry advice works out to, for the entries that give one.
var corpusAdvice = map[string]time.Duration{
	"E01": 18642 * time.Millisecond, // header and message agree
	"E02": 20 * time.Second,
	"E20": 37 * time.Second, // retry-after, retry-after-ms and the message agree
	"E36": 34400 * time.Millisecond,
	"E44": 2 * time.Second, // retry-after 2 is later than the message's 1.984999999s
}

// corpusFailure builds the Failure the agent would report for an entry.
func corpusFailure(t *testing.T, e retrytest.CorpusEntry, now time.Time) Failure {
	t.Helper()
	h := http.Header{}
	for k, v := range e.Headers {
		h.Set(k, v)
	}
	switch e.Phase {
	case "status":
		return Failure{Phase: Status, Status: e.Status, Header: h, Body: []byte(e.Body), Now: now}
	case "connect":
		return Failure{Phase: BeforeHeaders, Err: errors.New(e.Body), Now: now}
	case "in_stream":
		f := streamFailure([]byte(e.Body))
		f.Header, f.Now = h, now
		return f
	}
	t.Fatalf("%s: unknown phase %q", e.ID, e.Phase)
	return Failure{}
}

// streamFailure reads raw stream text the way the agent's reader does and reports what it saw.
func streamFailure(body []byte) Failure {
	if frame, ok := StreamError(body); ok {
		phase := InStreamBeforeDelta
		if content, _, _ := scanStream(body[:bytes.Index(body, frame)]); content {
			phase = InStreamAfterDelta
		}
		return Failure{Phase: phase, Status: http.StatusOK, Body: frame}
	}
	content, finished, onlyComments := scanStream(body)
	f := Failure{Phase: InStreamBeforeDelta, Status: http.StatusOK}
	if content {
		f.Phase = InStreamAfterDelta
	}
	switch {
	case onlyComments:
		f.Kind = NetTimeoutFirstDelta
	case !finished:
		f.Kind = NetCut
	case !content:
		f.Kind = NetEmpty
	}
	return f
}

// scanStream reports whether the stream text holds a content delta, whether it finished
// ([DONE] or a finish_reason), and whether it held nothing but SSE comments.
func scanStream(body []byte) (content, finished, onlyComments bool) {
	onlyComments = true
	for line := range bytes.Lines(body) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '<' { // blank, or the corpus's note of how it ended
			continue
		}
		if line[0] != ':' {
			onlyComments = false
		}
		payload, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		payload = bytes.TrimSpace(payload)
		if string(payload) == "[DONE]" {
			finished = true
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta        struct{ Content string } `json:"delta"`
				FinishReason *string                  `json:"finish_reason"`
			} `json:"choices"`
			Type  string                `json:"type"`
			Delta struct{ Text string } `json:"delta"`
		}
		if json.Unmarshal(payload, &chunk) != nil {
			continue
		}
		for _, c := range chunk.Choices {
			content = content || c.Delta.Content != ""
			finished = finished || c.FinishReason != nil
		}
		content = content || (chunk.Type == "content_block_delta" && chunk.Delta.Text != "")
	}
	return content, finished, onlyComments
}

func TestClassifyCorpus(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, e := range retrytest.Corpus(t) {
		t.Run(e.ID, func(t *testing.T) {
			c := Classify(corpusFailure(t, e, now))
			if c.Class != chat.Class(e.ExpectedClass) || c.Retryable != e.Retryable {
				t.Errorf("%s %s: got %s retryable=%v, want %s retryable=%v (message %q)",
					e.Provider, e.Scenario, c.Class, c.Retryable, e.ExpectedClass, e.Retryable, c.Message)
			}
			if c.Label != chat.Label(c.Class) || c.Message == "" {
				t.Errorf("label %q, message %q: want the class's label and a message", c.Label, c.Message)
			}
			var want time.Time
			if d, ok := corpusAdvice[e.ID]; ok {
				want = now.Add(d)
			}
			if !c.RetryAfterUntil.Equal(want) {
				t.Errorf("RetryAfterUntil = %v, want %v", c.RetryAfterUntil, want)
			}
		})
	}
}

func TestCorpusStreamsReadAsTheAgentSeesThem(t *testing.T) {
	byID := map[string]retrytest.CorpusEntry{}
	for _, e := range retrytest.Corpus(t) {
		byID[e.ID] = e
	}
	for id, want := range map[string]struct {
		phase Phase
		kind  NetKind
		frame bool
	}{
		"E13": {InStreamBeforeDelta, NetUnknown, true},
		"E15": {InStreamAfterDelta, NetUnknown, true},
		"E19": {InStreamAfterDelta, NetCut, false},
		"E24": {InStreamBeforeDelta, NetUnknown, true},
		"E28": {InStreamAfterDelta, NetUnknown, true},
		"E54": {InStreamBeforeDelta, NetTimeoutFirstDelta, false},
		"E63": {InStreamBeforeDelta, NetEmpty, false},
	} {
		e, ok := byID[id]
		if !ok {
			t.Errorf("%s missing from the corpus", id)
			continue
		}
		f := streamFailure([]byte(e.Body))
		if f.Phase != want.phase || f.Kind != want.kind || (len(f.Body) > 0) != want.frame {
			t.Errorf("%s: phase %d kind %d frame %q; want phase %d kind %d frame %v",
				id, f.Phase, f.Kind, f.Body, want.phase, want.kind, want.frame)
		}
	}
}

// classAgreement is the share of entries whose class the classifier must agree with, in each of
// the provider corpus's sets (the held-out fifth and the rest). Retryability must agree always.
const classAgreement = 0.95

func TestClassifyProviderCorpus(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	holdout := retrytest.Holdout(t)
	type tally struct {
		n, retry, class int
		misses          []string
	}
	sets := map[bool]*tally{true: {}, false: {}}
	for _, e := range retrytest.ProviderCorpus(t) {
		c := Classify(corpusFailure(t, e, now))
		s := sets[holdout[e.ID]]
		s.n++
		if c.Retryable == e.Retryable {
			s.retry++
		} else {
			t.Errorf("%s: retryable=%v (%s), want %v", e.ID, c.Retryable, c.Class, e.Retryable)
		}
		if c.Class == chat.Class(e.ExpectedClass) {
			s.class++
		} else if holdout[e.ID] {
			// Only the ids: the held-out entries must not tune the rules.
			s.misses = append(s.misses, fmt.Sprintf("%s got %s want %s", e.ID, c.Class, e.ExpectedClass))
		} else {
			s.misses = append(s.misses, fmt.Sprintf("%s %s: got %s by %s, want %s (%q)",
				e.ID, e.Provider, c.Class, c.Rule, e.ExpectedClass, c.Message))
		}
	}
	for _, set := range []struct {
		name    string
		holdout bool
	}{{"held-out", true}, {"rest", false}} {
		s := sets[set.holdout]
		t.Logf("%s: retryability %d/%d, class %d/%d", set.name, s.retry, s.n, s.class, s.n)
		for _, m := range s.misses {
			t.Logf("  %s", m)
		}
		if float64(s.class) < classAgreement*float64(s.n) {
			t.Errorf("%s: class agrees on %d of %d entries, below %.0f%%", set.name, s.class, s.n, classAgreement*100)
		}
	}
}
