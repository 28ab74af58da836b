package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"parley/internal/chat"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
	"parley/retry"
	"parley/retry/retrytest"
)

func TestEstimateTokens(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		msgs []chat.Message
		want int
	}{
		{"no messages", nil, 0},
		{"one empty message", []chat.Message{{Role: "user"}}, 3 + 4},
		{"four characters are one token", []chat.Message{{Role: "user", Content: "abcd"}}, 3 + 4 + 1},
		{"a fifth character rounds up", []chat.Message{{Role: "user", Content: "abcde"}}, 3 + 4 + 2},
		{"characters, not bytes", []chat.Message{{Role: "user", Content: "héllo wörld"}}, 3 + 4 + 3},
		{"per message", []chat.Message{{Role: "system", Content: strings.Repeat("x", 40)}, {Role: "user", Content: "hi"}}, 3 + 4 + 10 + 4 + 1},
	}
	for _, c := range cases {
		if got := EstimateTokens(c.msgs); got != c.want {
			t.Errorf("%s: EstimateTokens = %d, want %d", c.name, got, c.want)
		}
	}
	if got := EstimateText(strings.Repeat("€", 9)); got != 3 {
		t.Errorf("EstimateText of 9 runes = %d, want 3", got)
	}
}

func TestParseOverflowReadsTheCorpus(t *testing.T) {
	t.Parallel()
	want := map[string][2]int{ // limit, requested
		"E07": {4097, 4363},     // OpenAI context_length_exceeded
		"E29": {200000, 205351}, // Anthropic prompt is too long
		"E58": {4096, 5000},     // vLLM in-stream
		"E59": {8192, 13392},    // llama.cpp exceed_context_size_error
	}
	seen := 0
	for _, e := range retrytest.Corpus(t) {
		if e.ExpectedClass != string(chat.ContextOverflow) {
			continue
		}
		w, ok := want[e.ID]
		if !ok {
			t.Errorf("%s: a context_overflow entry this test does not know", e.ID)
			continue
		}
		seen++
		f := retry.Failure{Phase: retry.Status, Status: e.Status, Body: []byte(e.Body)}
		if e.Phase == "in_stream" {
			frame, _ := retry.StreamError([]byte(e.Body))
			f = retry.Failure{Phase: retry.InStreamBeforeDelta, Status: 200, Body: frame}
		}
		cls := retry.Classify(f)
		limit, requested := parseOverflow(f.Body, cls.Message)
		if cls.Class != chat.ContextOverflow || limit != w[0] || requested != w[1] {
			t.Errorf("%s: %s, limit %d, requested %d; want context_overflow, %d, %d", e.ID, cls.Class, limit, requested, w[0], w[1])
		}
	}
	if seen != len(want) {
		t.Errorf("found %d of the %d overflow entries", seen, len(want))
	}
}

func TestParseOverflowOtherForms(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body, message string
		limit, requested    int
	}{
		{"deepseek", "", "This model's maximum context length is 65536 tokens. However, you requested 70000 tokens (70000 in the messages, 0 in the completion).", 65536, 70000},
		{"gemini", "", "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", 1048576, 1200000},
		{"mistral", "", "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length", 32768, 40000},
		{"llama.cpp fields beside a bare message", `{"error":{"message":"too long","n_ctx":2048,"n_prompt_tokens":3000}}`, "too long", 2048, 3000},
		// Wordings from retry/testdata/corpus.json (outside its held-out fifth).
		{"sglang", "", "Input length (160062 tokens) exceeds the maximum allowed length (59862 tokens).", 59862, 160062},
		{"vllm input tokens", "", "This model's maximum context length is 3 tokens. However, your request has 8 input tokens. Please reduce the length of the input messages.", 3, 8},
		{"anthropic context limit", "", "input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, decrease input length or `max_tokens` and try again", 200000, 199759},
		{"moonshot", "", "Invalid request: Your request exceeded model token limit: 262144 (requested: 265359)", 262144, 265359},
		{"xinference", "", "[address=0.0.0.0:43769, pid=1065] The decoder prompt (length 66501) is longer than the maximum model length of 65536. Make sure that `max_model_len` is no smaller than the number of text tokens.", 65536, 66501},
		{"lm studio", "", "Trying to keep the first 4632 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough.", 4096, 4632},
		{"tgi total", "", "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 1512. Given: 1000 `inputs` tokens and 1024 `max_new_tokens`", 1512, 1000},
		{"tgi inputs", "", "Input validation error: `inputs` must have less than 1024 tokens. Given: 1168", 1024, 1168},
		{"dashscope", "", "<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 983616]", 983616, 0},
		// Wordings from retry/testdata/corpus3.json.
		{"xai", "", "This model's maximum prompt length is 131072 but the request contains 537812 tokens.", 131072, 537812},
		{"github copilot", "", "prompt token count of 138898 exceeds the limit of 64000", 64000, 138898},
		{"vllm at least", "", "This model's maximum context length is 4096 tokens. However, you requested 1 output tokens and your prompt contains at least 4096 input tokens, for a total of at least 4097 tokens.", 4096, 4096},
		{"no numbers: halve", `{"error":{"message":"context length exceeded"}}`, "context length exceeded", 0, 0},
		{"not JSON", "<html>413</html>", "", 0, 0},
	}
	for _, c := range cases {
		limit, requested := parseOverflow([]byte(c.body), c.message)
		if limit != c.limit || requested != c.requested {
			t.Errorf("%s: limit %d requested %d, want %d %d", c.name, limit, requested, c.limit, c.requested)
		}
	}
}

// conversation is a system prompt, turns operator/reply turns of about 50 tokens each, and a
// last operator message, the anchor.
func conversation(turns int) []chat.Message {
	msgs := []chat.Message{{Role: "system", Content: "You are terse."}}
	for i := range turns {
		msgs = append(msgs,
			chat.Message{Role: "user", Content: fmt.Sprintf("question %d %s", i, strings.Repeat("q", 180))},
			chat.Message{Role: "assistant", Content: fmt.Sprintf("answer %d %s", i, strings.Repeat("a", 180))})
	}
	return append(msgs, chat.Message{Role: "user", Content: "and now?"})
}

func TestCompactLeavesOutTheOldestTurnsOnly(t *testing.T) {
	t.Parallel()
	msgs := conversation(10)
	orig := slices.Clone(msgs)
	full := EstimateTokens(msgs)
	for target := 0; target <= full+10; target += 37 {
		kept, omitted := Compact(msgs, target)
		if !reflect.DeepEqual(msgs, orig) {
			t.Fatal("Compact changed its input")
		}
		if omitted != len(msgs)-len(kept) || omitted%2 != 0 {
			t.Fatalf("target %d: omitted %d of %d, kept %d: whole turns go, and are counted", target, omitted, len(msgs), len(kept))
		}
		if !reflect.DeepEqual(kept[0], msgs[0]) || !reflect.DeepEqual(kept[len(kept)-1], msgs[len(msgs)-1]) {
			t.Fatalf("target %d: the system prompt or the anchor was left out: %v", target, kept)
		}
		// What is kept is the newest part of the conversation, in order.
		if !reflect.DeepEqual(kept[1:], msgs[1+omitted:]) {
			t.Fatalf("target %d: kept %d messages that are not the newest", target, len(kept))
		}
		fits := EstimateTokens(kept) <= target
		if !fits && len(kept) != 2 {
			t.Fatalf("target %d: kept %d tokens in %d messages; only system+anchor may stay over target", target, EstimateTokens(kept), len(kept))
		}
		if fits && omitted > 0 {
			// No more was left out than needed: one more turn would have fitted.
			more := append([]chat.Message{msgs[0]}, msgs[omitted-1:]...)
			if EstimateTokens(more) <= target {
				t.Fatalf("target %d: left out %d, but %d would have fitted", target, omitted, omitted-2)
			}
		}
	}
	if kept, omitted := Compact(msgs, full); omitted != 0 || len(kept) != len(msgs) {
		t.Fatalf("a conversation within target lost %d messages", omitted)
	}
	if _, omitted := Compact([]chat.Message{{Role: "user", Content: strings.Repeat("x", 4000)}}, 10); omitted != 0 {
		t.Fatal("the anchor alone was left out")
	}
}

func TestCompactKeepsEverySystemMessage(t *testing.T) {
	t.Parallel()
	msgs := []chat.Message{
		{Role: "user", Content: strings.Repeat("a", 400)},
		{Role: "system", Content: "mid-conversation instruction"},
		{Role: "assistant", Content: strings.Repeat("b", 400)},
		{Role: "user", Content: strings.Repeat("c", 400)},
		{Role: "assistant", Content: strings.Repeat("d", 400)},
		{Role: "user", Content: "anchor"},
	}
	kept, omitted := Compact(msgs, 0)
	if omitted != 4 || len(kept) != 2 || kept[0].Role != "system" || kept[1].Content != "anchor" {
		t.Fatalf("kept %+v (omitted %d), want the system message and the anchor", kept, omitted)
	}
}

func TestCompactBudget(t *testing.T) {
	t.Parallel()
	sent := conversation(10)
	est := EstimateTokens(sent)
	if got := compactTarget(sent, 0, 0); got != est/2 {
		t.Errorf("no stated limit: %d, want half of %d", got, est)
	}
	if got := compactTarget(sent, 8192, 0); got != 6144 {
		t.Errorf("limit 8192: %d, want 6144 (three quarters)", got)
	}
	// The endpoint counted twice what parley estimated: its tokens are half the size.
	if got := compactTarget(sent, 8192, 2*est); got != 3072 {
		t.Errorf("limit 8192, counted 2×estimate: %d, want 3072", got)
	}
}

// runEvents sends msgs through c and returns every event of the run.
func runEvents(t *testing.T, c *Client, msgs []chat.Message) []chat.Event {
	t.Helper()
	var events []chat.Event
	for ev := range c.Stream(context.Background(), msgs) {
		events = append(events, ev)
	}
	if len(events) == 0 || !events[len(events)-1].Terminal() {
		t.Fatalf("run did not end with a terminal event: %+v", events)
	}
	return events
}

func kinds(events []chat.Event) []chat.EventKind {
	var out []chat.EventKind
	for _, ev := range events {
		if ev.Kind != chat.EventDelta {
			out = append(out, ev.Kind)
		}
	}
	return out
}

func TestOverflowCompactsOnceAndSucceedsInEveryForm(t *testing.T) {
	t.Parallel()
	for _, form := range demo.Overflows {
		t.Run(string(form), func(t *testing.T) {
			t.Parallel()
			srv, c := overflowing(t, 600, form)
			msgs := conversation(20) // about 2000 tokens
			events := runEvents(t, c, msgs)
			last := events[len(events)-1]
			if last.Kind != chat.EventFinished || srv.Requests() != 2 {
				t.Fatalf("ended %+v after %d requests, want finished after 2", last, srv.Requests())
			}
			want := []chat.EventKind{chat.EventStarted, chat.EventCompacted, chat.EventStarted, chat.EventUsage, chat.EventFinished}
			if got := kinds(events); !slices.Equal(got, want) {
				t.Fatalf("events %v, want %v", got, want)
			}
			second := srv.Received()[1].Messages
			omitted := events[1].Omitted
			if omitted == 0 || len(second) != len(msgs)-omitted {
				t.Fatalf("omitted %d, second request carried %d of %d messages", omitted, len(second), len(msgs))
			}
			if second[0].Content != msgs[0].Content || second[len(second)-1].Content != "and now?" {
				t.Fatalf("the second request lost the system prompt or the anchor: %+v", second)
			}
			if events[2].Attempt != 1 {
				t.Fatalf("the re-run is attempt %d, want 1: it is no Tier 1 retry", events[2].Attempt)
			}
			for _, ev := range events {
				if ev.Kind == chat.EventRetrying {
					t.Fatalf("Tier 1 retried: %+v", ev)
				}
			}
		})
	}
}

func TestSingleOversizeMessageFailsWithoutRerun(t *testing.T) {
	t.Parallel()
	for _, form := range demo.Overflows {
		t.Run(string(form), func(t *testing.T) {
			t.Parallel()
			srv, c := overflowing(t, 100, form)
			events := runEvents(t, c, []chat.Message{{Role: "user", Content: strings.Repeat("long ", 200)}})
			last := events[len(events)-1]
			if last.Kind != chat.EventFailed || last.Class.Class != chat.ContextOverflow || last.Class.Retryable {
				t.Fatalf("ended %+v, want failed context_overflow, not retryable", last)
			}
			if srv.Requests() != 1 || count(events, chat.EventCompacted) != 0 || count(events, chat.EventRetrying) != 0 {
				t.Fatalf("%d requests, events %v: nothing could be left out, so nothing is sent again", srv.Requests(), kinds(events))
			}
		})
	}
}

func TestSecondOverflowFailsNotRetryable(t *testing.T) {
	t.Parallel()
	srv, c := overflowing(t, 100, demo.OverflowLlamaCpp)
	msgs := conversation(3)
	msgs[len(msgs)-1].Content = strings.Repeat("big ", 200) // the anchor alone is over the target
	events := runEvents(t, c, msgs)
	last := events[len(events)-1]
	if last.Kind != chat.EventFailed || last.Class.Class != chat.ContextOverflow || last.Class.Retryable {
		t.Fatalf("ended %+v, want failed context_overflow, not retryable", last)
	}
	if srv.Requests() != 2 || count(events, chat.EventCompacted) != 1 {
		t.Fatalf("%d requests, events %v, want 2 requests and one compaction", srv.Requests(), kinds(events))
	}
	if got := len(srv.Received()[1].Messages); got != 2 {
		t.Fatalf("the re-run carried %d messages, want the system prompt and the anchor", got)
	}
}

func TestOverflowAfterTier1RetriesStillCompacts(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{ContextTokens: 600, Overflow: demo.OverflowOpenAI}, demo.Overloaded())
	clock := instantClock()
	c := NewClient(Endpoint{BaseURL: srv.URL(), Model: "m"}, clock, retry.DefaultPolicy())
	events := runEvents(t, c, conversation(20))
	want := []chat.EventKind{chat.EventStarted, chat.EventRetrying, chat.EventStarted, chat.EventCompacted, chat.EventStarted, chat.EventUsage, chat.EventFinished}
	if got := kinds(events); !slices.Equal(got, want) || srv.Requests() != 3 {
		t.Fatalf("events %v after %d requests, want %v after 3", got, srv.Requests(), want)
	}
	if len(clock.Waits()) != 1 {
		t.Fatalf("waits %v: the compaction re-run goes at once", clock.Waits())
	}
}

func TestConfiguredContextCompactsBeforeSending(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{ContextTokens: 600, Overflow: demo.OverflowOpenAI})
	c := testClient(Endpoint{BaseURL: srv.URL(), Model: "m", ContextTokens: 800})
	msgs := conversation(20)
	events := runEvents(t, c, msgs)
	want := []chat.EventKind{chat.EventCompacted, chat.EventStarted, chat.EventUsage, chat.EventFinished}
	if got := kinds(events); !slices.Equal(got, want) || srv.Requests() != 1 {
		t.Fatalf("events %v after %d requests, want %v after 1", got, srv.Requests(), want)
	}
	sent := srv.Received()[0].Messages
	if est := EstimateTokens(toAgent(sent)); est > 600 {
		t.Fatalf("sent an estimated %d tokens, want at most 600 (three quarters of 800)", est)
	}
	if len(sent) != len(msgs)-events[0].Omitted {
		t.Fatalf("sent %d messages, omitted %d of %d", len(sent), events[0].Omitted, len(msgs))
	}
}

func toAgent(msgs []demo.Message) []chat.Message {
	out := make([]chat.Message, len(msgs))
	for i, m := range msgs {
		out[i] = chat.Message{Role: chat.Role(m.Role), Content: m.Content}
	}
	return out
}

func TestOverflowAfterTextIsNotRetried(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{}, demo.Fault{Stream: `data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}` + "\n\n" +
		`data: {"error":{"message":"This model's maximum context length is 100 tokens.","code":"context_length_exceeded"}}` + "\n\n"})
	c := testClient(Endpoint{BaseURL: srv.URL(), Model: "m"})
	events := runEvents(t, c, conversation(5))
	if last := events[len(events)-1]; last.Kind != chat.EventFailed || srv.Requests() != 1 || count(events, chat.EventCompacted) != 0 {
		t.Fatalf("ended %+v after %d requests, events %v: text was shown, nothing may be sent again", last, srv.Requests(), kinds(events))
	}
}

func TestStreamOptionsRejectedIsSentOnceWithout(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{})
	reject := demo.Fault{Status: 400, Header: map[string]string{"Content-Type": "application/json"},
		Body: `{"error":{"message":"Unrecognized request argument supplied: stream_options","type":"invalid_request_error"}}`}
	srv.Push(reject, demo.Overloaded(), demo.Overloaded())
	clock := instantClock()
	c := NewClient(Endpoint{BaseURL: srv.URL(), Model: "m"}, clock, retry.DefaultPolicy())
	events := runEvents(t, c, []chat.Message{{Role: "user", Content: "hello"}})
	if last := events[len(events)-1]; last.Kind != chat.EventFinished || srv.Requests() != 4 {
		t.Fatalf("ended %+v after %d requests, want finished after 4: the resend is no Tier 1 attempt", last, srv.Requests())
	}
	var starts []int
	for _, ev := range events {
		if ev.Kind == chat.EventStarted {
			starts = append(starts, ev.Attempt)
		}
	}
	if !slices.Equal(starts, []int{1, 1, 2, 3}) {
		t.Fatalf("attempt numbers %v, want [1 1 2 3]", starts)
	}
	for i, r := range srv.Received() {
		var body map[string]any
		json.Unmarshal(r.Body, &body)
		if _, has := body["stream_options"]; has != (i == 0) {
			t.Fatalf("request %d: stream_options present=%v", i+1, has)
		}
	}
	// The endpoint reported no usage without stream_options: the run estimates it.
	var u []chat.Usage
	for _, ev := range events {
		if ev.Kind == chat.EventUsage {
			u = append(u, ev.Usage)
		}
	}
	msgs := []chat.Message{{Role: "user", Content: "hello"}}
	if len(u) != 1 || !u[0].Estimated || u[0].PromptTokens != EstimateTokens(msgs) || u[0].CompletionTokens != EstimateText(text(events)) {
		t.Fatalf("usage %+v, want one estimate: %d prompt, %d completion", u, EstimateTokens(msgs), EstimateText(text(events)))
	}
	// The client remembers: the next run leaves stream_options out from the start.
	runEvents(t, c, msgs)
	if n := srv.Requests(); n != 5 || strings.Contains(string(srv.Received()[4].Body), "stream_options") {
		t.Fatalf("%d requests; the fifth carried stream_options again", n)
	}
}

func TestReportedUsageIsNotEstimated(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{})
	c := testClient(Endpoint{BaseURL: srv.URL(), Model: "m"})
	events := collect(t, c, context.Background())
	for _, ev := range events {
		if ev.Kind == chat.EventUsage && (ev.Usage.Estimated || ev.Usage.PromptTokens == 0) {
			t.Fatalf("usage %+v, want the endpoint's own", ev.Usage)
		}
	}
}

func TestOmittedNote(t *testing.T) {
	t.Parallel()
	if got := OmittedNote(chat.Event{Omitted: 12}); got != "12 earlier messages left out to fit the model's context" {
		t.Error(got)
	}
	if got := OmittedNote(chat.Event{Omitted: 1}); got != "1 earlier message left out to fit the model's context" {
		t.Error(got)
	}
	if got := OmittedNote(chat.Event{Omitted: 4, OmittedImages: 1}); got != "1 earlier image and 4 earlier messages left out to fit the model's context" {
		t.Error(got)
	}
	if got := OmittedNote(chat.Event{OmittedImages: 2, ImagesUnseen: true}); got != "2 earlier images left out because this model takes no images" {
		t.Error(got)
	}
}

// A gateway's overflow is read from the upstream's error inside its message: classification
// hands on the innermost message.
func TestParseOverflowNestedInAGatewayError(t *testing.T) {
	t.Parallel()
	body := `{"error":{"message":"ConnectionError: {\n        \"object\": \"error\",\n        \"message\": \"This model's maximum context length is 16000 tokens. However, you requested 17165 tokens (13069 in the messages, 4096 in the completion).\",\n        \"type\": \"BadRequestError\",\n        \"code\": 400\n    }","code":502,"metadata":{"provider_name":"DeepInfra"}}}`
	cls := retry.Classify(retry.Failure{Phase: retry.InStreamBeforeDelta, Status: 200, Body: []byte(body)})
	limit, requested := parseOverflow([]byte(body), cls.Message)
	if cls.Class != chat.ContextOverflow || limit != 16000 || requested != 17165 {
		t.Errorf("%s %q: limit %d requested %d, want context_overflow, 16000, 17165", cls.Class, cls.Message, limit, requested)
	}
}

// overflowing starts a demo endpoint that rejects a prompt over window tokens as form words it,
// and a client of it on a manual clock.
func overflowing(t *testing.T, window int, form demo.Overflow) (*demo.Server, *Client) {
	t.Helper()
	srv := demotest.Start(t, demo.Options{ContextTokens: window, Overflow: form})
	return srv, testClient(Endpoint{BaseURL: srv.URL(), Model: "m"})
}

// A pinned message is never left out, however far back it is; the rest of its turn may be.
func TestCompactKeepsPinnedMessages(t *testing.T) {
	t.Parallel()
	msgs := conversation(10)
	msgs[1].Pinned = true // the first operator message: "always answer in French"
	kept, omitted := Compact(msgs, EstimateTokens(msgs)/3)
	if omitted == 0 || !reflect.DeepEqual(kept[1], msgs[1]) {
		t.Fatalf("omitted %d; kept %+v", omitted, kept[:2])
	}
	drop, n := LeaveOut(msgs, EstimateTokens(msgs)/3)
	if n != omitted || drop[1] || !drop[2] {
		t.Errorf("LeaveOut %v (%d) does not say what Compact leaves out (%d)", drop, n, omitted)
	}
}

// NewPlan says before a send what the send leaves out: the same messages, pinned ones kept,
// and the estimates of what goes and what does not.
func TestNewPlanSaysWhatTheSendLeavesOut(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{})
	c := testClient(Endpoint{BaseURL: srv.URL(), Model: "m", ContextTokens: 800})
	msgs := conversation(20)
	msgs[1].Pinned = true
	plan := NewPlan(msgs, 800, "profile", 0)
	if plan.Omitted == 0 || plan.Drop[1] || !plan.Drop[2] || plan.Tokens > PreSendTarget(800, 0) {
		t.Fatalf("plan %+v: want the oldest turns left out but the pinned one, within %d", plan, PreSendTarget(800, 0))
	}
	runEvents(t, c, msgs)
	var want []chat.Message
	for i, m := range msgs {
		if !plan.Drop[i] {
			want = append(want, chat.Message{Role: m.Role, Content: m.Content})
		}
	}
	if sent := toAgent(srv.Received()[0].Messages); !reflect.DeepEqual(sent, want) {
		t.Fatalf("sent %d messages, the plan kept %d", len(sent), len(want))
	}
	if plan.Tokens != EstimateTokens(want) || plan.Tokens+plan.LeftOut != EstimateTokens(msgs) {
		t.Errorf("plan estimates %d sent + %d left out; the messages are %d of %d", plan.Tokens, plan.LeftOut, EstimateTokens(want), EstimateTokens(msgs))
	}
	if plan.Size != EstimateTokens(msgs) || plan.Size <= plan.Room() || plan.Room() != PreSendTarget(800, 0) {
		t.Errorf("plan's size %d against room %d: a send that leaves things out is over its room", plan.Size, plan.Room())
	}
	if p := NewPlan(msgs, 0, "", 0); p.Omitted != 0 || p.Tokens != EstimateTokens(msgs) {
		t.Errorf("an unknown window plans %+v, want nothing left out", p)
	}
	if p := NewPlan(msgs[:3], 800, "profile", 0); p.Omitted != 0 || p.Size > p.Room() || !reflect.DeepEqual(p.Sent(msgs[:3]), msgs[:3]) {
		t.Errorf("a conversation that fits plans %+v: want it whole, within its room", p)
	}
}

// The offered tools' schemas go with every request and take room in the window: the send
// leaves out as much more of the conversation as they take, and the plan says the same.
// The tools are server-filesystem's 14, as internal/mcp offers them.
func TestOfferedToolsTakeRoomInTheWindow(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/filesystem-tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(b, &entries); err != nil || len(entries) != 14 {
		t.Fatalf("%d entries, %v", len(entries), err)
	}
	fixed := ToolTokens(entries)
	msgs := conversation(10)
	const window = 4096
	if p := NewPlan(msgs, window, "profile", 0); p.Omitted != 0 {
		t.Fatalf("without tools the conversation should fit: %+v", p)
	}
	plan := NewPlan(msgs, window, "profile", fixed)
	if plan.Omitted == 0 || plan.Tokens > PreSendTarget(window, 0) || plan.Tokens-fixed > PreSendTarget(window, fixed) {
		t.Fatalf("with %d tokens of tools: plan %+v, want turns left out within %d", fixed, plan, PreSendTarget(window, 0))
	}
	srv := demotest.Start(t, demo.Options{})
	c := testClient(Endpoint{BaseURL: srv.URL(), Model: "m", ContextTokens: window}).WithTools(entries)
	events := runEvents(t, c, msgs)
	if events[0].Kind != chat.EventCompacted || events[0].Omitted != plan.Omitted {
		t.Fatalf("events %v, want compaction of %d first", kinds(events), plan.Omitted)
	}
	var want []chat.Message
	for i, m := range msgs {
		if !plan.Drop[i] {
			want = append(want, chat.Message{Role: m.Role, Content: m.Content})
		}
	}
	req := srv.Received()[0]
	if sent := toAgent(req.Messages); !reflect.DeepEqual(sent, want) || len(req.Tools) != 14 {
		t.Fatalf("sent %d messages and %d tools; the plan kept %d messages", len(sent), len(req.Tools), len(want))
	}
}

// Overflow in other words (retry/testdata/corpus3.json) is an overflow too: the run compacts
// once to the window the message states and succeeds on the second request.
func TestOverflowInOtherWordsCompacts(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"xai":            `{"code":"invalid-argument","error":"This model's maximum prompt length is 600 but the request contains 2100 tokens."}`,
		"github copilot": `{"error":{"message":"prompt token count of 2100 exceeds the limit of 600","code":"model_max_prompt_tokens_exceeded"}}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := demotest.Start(t, demo.Options{}, demo.Fault{Status: http.StatusBadRequest, Header: map[string]string{"Content-Type": "application/json"}, Body: body})
			msgs := conversation(20) // about 2000 tokens
			events := runEvents(t, testClient(Endpoint{BaseURL: srv.URL(), Model: "m"}), msgs)
			if last := events[len(events)-1]; last.Kind != chat.EventFinished || srv.Requests() != 2 {
				t.Fatalf("ended %+v after %d requests, want finished after 2", last, srv.Requests())
			}
			if second := srv.Received()[1].Messages; len(second) >= len(msgs) || second[len(second)-1].Content != "and now?" {
				t.Errorf("the second request carried %d of %d messages, ending %q: want fewer, ending in the anchor",
					len(second), len(msgs), second[len(second)-1].Content)
			}
		})
	}
}
