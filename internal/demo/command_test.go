package demo

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"parley/internal/chat/chattest"
)

func queued(s *Server) []string {
	var out []string
	for _, f := range queuedFaults(s) {
		out = append(out, f.String())
	}
	return out
}

func queuedFaults(s *Server) []Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Fault(nil), s.faults...)
}

// command starts a demo server and gives it one /demo command, which must be accepted.
func command(t *testing.T, args string) (*Server, string) {
	t.Helper()
	s, _ := start(t, Options{})
	out, err := s.Command(args)
	if err != nil {
		t.Fatal(err)
	}
	return s, out
}

func TestCommand(t *testing.T) {
	tests := []struct {
		args    string
		queue   []string
		confirm string
	}{
		{"overload", []string{"HTTP 503 overloaded", "HTTP 503 overloaded", "HTTP 503 overloaded"}, "next 3 requests"},
		{"overload 2", []string{"HTTP 503 overloaded", "HTTP 503 overloaded"}, "next 2 requests"},
		{"/demo overload 1", []string{"HTTP 503 overloaded"}, "demo: the next request gets 503 overloaded"},
		{"ratelimit 50m", []string{"HTTP 429 rate_limit_exceeded"}, "retry after 50m0s"},
		{"  ratelimit   20s ", []string{"HTTP 429 rate_limit_exceeded"}, "retry after 20s"},
		{"quota", []string{"HTTP 429 insufficient_quota"}, "insufficient_quota"},
		{"badkey", []string{"HTTP 401 invalid_api_key"}, "401"},
		{"overflow", []string{"HTTP 400 context_length_exceeded"}, "context_length_exceeded"},
		{"error", []string{"raw stream"}, "error event"},
		{"cut", []string{"cut after 20 chunks"}, "after 20 chunks"},
		{"cut 7", []string{"cut after 7 chunks"}, "after 7 chunks"},
		{"cut 1", []string{"cut after 1 chunk"}, "demo: the next reply breaks off after 1 chunk"},
		{"stall", []string{"stall"}, "stalls"},
		{"help", nil, "usage: /demo overload"},
		{"", nil, "usage: /demo overload"},
		{"status", nil, "no faults queued · 0 requests so far"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			s, out := command(t, tt.args)
			if !strings.Contains(out, tt.confirm) || strings.Contains(out, "\n") {
				t.Errorf("confirmation %q, want one line with %q", out, tt.confirm)
			}
			if got := queued(s); strings.Join(got, "|") != strings.Join(tt.queue, "|") {
				t.Errorf("queue %q, want %q", got, tt.queue)
			}
		})
	}
}

func TestCommandQueuesFaultsThatWork(t *testing.T) {
	s, c := start(t, Options{})
	for _, args := range []string{"ratelimit 90s", "quota", "badkey", "overflow"} {
		if _, err := s.Command(args); err != nil {
			t.Fatal(err)
		}
	}
	for i, want := range []int{429, 429, 401, 400, 200} {
		resp := postChat(t, s, c, chatBody(t, false, false, hello...))
		if resp.StatusCode != want {
			t.Fatalf("request %d: %d, want %d", i, resp.StatusCode, want)
		}
		if i == 0 && resp.Header.Get("Retry-After") != "90" {
			t.Errorf("Retry-After %q", resp.Header.Get("Retry-After"))
		}
	}
}

func TestCommandRejectsBadInput(t *testing.T) {
	s, _ := start(t, Options{})
	for _, args := range []string{
		"overload x", "overload 0", "overload -1", "overload 1001", "overload 1 2",
		"ratelimit", "ratelimit soon", "ratelimit -5s", "ratelimit 0s", "ratelimit 1m 2m",
		"cut 0", "cut many", "quota now", "stall 3", "reset all", "status now", "frobnicate",
	} {
		out, err := s.Command(args)
		if err == nil {
			t.Errorf("%q accepted: %q", args, out)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "usage: /demo ") || strings.Contains(msg, "\n") {
			t.Errorf("%q: error %q has no one-line usage", args, msg)
		}
	}
	if q := queued(s); len(q) != 0 {
		t.Errorf("bad commands queued %q", q)
	}
}

func TestCommandResetAndStatus(t *testing.T) {
	s, c := start(t, Options{})
	postChat(t, s, c, chatBody(t, false, false, hello...))
	s.Command("overload 2")
	s.Push(Fault{Delay: time.Second, CutAfter: 4})
	out, _ := s.Command("status")
	if want := "demo: 3 queued: HTTP 503 overloaded, HTTP 503 overloaded, delay 1s, cut after 4 chunks · 1 request so far"; out != want {
		t.Errorf("status %q\nwant   %q", out, want)
	}
	if out, _ := s.Command("reset"); out != "demo: cleared 3 queued faults" {
		t.Errorf("reset: %q", out)
	}
	if q := queued(s); len(q) != 0 {
		t.Errorf("queue after reset: %q", q)
	}
}

func TestControlEndpoints(t *testing.T) {
	s, c := start(t, Options{})
	base := strings.TrimSuffix(s.URL(), "/v1")
	do := func(method, path, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(b)
	}

	code, out := do("POST", "/_demo/faults", `[{"status":418,"body":"teapot"},{"cut_after":2},{"delay":1000000,"status":502,"body":"bad gateway"}]`)
	if code != 200 || out != "queued 3 faults\n" {
		t.Fatalf("faults: %d %q", code, out)
	}
	if q := strings.Join(queued(s), "|"); q != "HTTP 418|cut after 2 chunks|delay 1ms, HTTP 502" {
		t.Fatalf("queue %q", q)
	}
	resp := postChat(t, s, c, chatBody(t, true, false, conversation...))
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != 418 || string(b) != "teapot" {
		t.Fatalf("pushed fault: %d %q", resp.StatusCode, b)
	}
	if code, out := do("POST", "/_demo/faults", `[{"reset":true}]`); code != 200 || out != "queued 1 fault\n" {
		t.Errorf("one fault: %d %q", code, out)
	}
	if code, out := do("POST", "/_demo/faults", `{"status":500}`); code != 400 {
		t.Errorf("a non-array was accepted: %d %q", code, out)
	}

	code, out = do("POST", "/_demo/command", "reset")
	if code != 200 || out != "demo: cleared 3 queued faults\n" {
		t.Fatalf("command: %d %q", code, out)
	}
	code, out = do("POST", "/_demo/command", "overload zero")
	if code != 400 || !strings.Contains(out, "usage: /demo") {
		t.Fatalf("bad command: %d %q", code, out)
	}

	code, out = do("GET", "/_demo/requests", "")
	if code != 200 {
		t.Fatalf("requests: %d %q", code, out)
	}
	if strings.Contains(out, "sk-test-key") {
		t.Fatal("the control endpoint shows the API key")
	}
	var got struct {
		Count    int `json:"count"`
		Requests []struct {
			Time     string    `json:"time"`
			Messages []Message `json:"messages"`
		} `json:"requests"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Count != 1 || len(got.Requests) != 1 || len(got.Requests[0].Messages) != len(conversation) || !reflect.DeepEqual(got.Requests[0].Messages[3], conversation[3]) {
		t.Fatalf("requests %+v", got)
	}
	if _, err := time.Parse(time.RFC3339Nano, got.Requests[0].Time); err != nil {
		t.Errorf("time: %v", err)
	}
}

func TestThinkCommands(t *testing.T) {
	tests := []struct {
		args    string
		fault   Fault
		confirm string
	}{
		{"think reasoning_content", Fault{Think: ThinkReasoningContent, ThinkFor: 3 * time.Second}, "thinks for 3s in reasoning_content deltas, then answers"},
		{"think reasoning 90s", Fault{Think: ThinkReasoning, ThinkFor: 90 * time.Second}, "thinks for 1m30s in reasoning deltas"},
		{"/demo think tags 1s", Fault{Think: ThinkTags, ThinkFor: time.Second}, "inside <think> tags"},
		{"think bare", Fault{Think: ThinkBare, ThinkFor: 3 * time.Second}, "before a lone </think>"},
		{"think silent 45m", Fault{Think: ThinkSilent, ThinkFor: 45 * time.Minute}, "thinks for 45m0s in silence"},
		{"thinkonly", Fault{Think: ThinkReasoningContent, ThinkFor: 3 * time.Second, ThinkOnly: true, Finish: "length"}, "finish_reason length and no answer"},
		{"thinkonly tags", Fault{Think: ThinkTags, ThinkFor: 3 * time.Second, ThinkOnly: true, Finish: "length"}, "inside <think> tags, then stops"},
		{"stallafter 4", Fault{StallAfter: 4}, "goes silent after 4 chunks, not even keep-alives"},
		{"length", Fault{MaxAnswer: lengthAnswer, Finish: "length"}, "stops after 16 chunks with finish_reason length"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			s, out := command(t, tt.args)
			if !strings.Contains(out, tt.confirm) || len(out) > 120 {
				t.Errorf("confirmation %q, want at most 120 bytes with %q", out, tt.confirm)
			}
			if got := queuedFaults(s); len(got) != 1 || !reflect.DeepEqual(got[0], tt.fault) {
				t.Fatalf("queued %+v, want %+v", got, tt.fault)
			}
		})
	}
}

func TestThinkCommandsQueueFaultsThatWork(t *testing.T) {
	clock := chattest.NewInstant(chattest.Start)
	s, c := start(t, Options{Clock: clock})
	for _, args := range []string{"think tags 2s", "length", "thinkonly"} {
		if _, err := s.Command(args); err != nil {
			t.Fatal(err)
		}
	}
	var got []transcript
	for range 3 {
		tr, err := readTranscript(t, postChat(t, s, c, chatBody(t, true, false, sky...)).Body)
		if err != io.EOF {
			t.Fatal(err)
		}
		got = append(got, tr)
	}
	if !strings.HasPrefix(got[0].content, "<think>\n") || !strings.HasSuffix(got[0].content, "</think>\n\n"+Reply(sky)) || got[0].finish != "stop" {
		t.Errorf("think tags: %q, finish %q", got[0].content, got[0].finish)
	}
	if len(got[1].pieces) != lengthAnswer || got[1].finish != "length" {
		t.Errorf("length: %d chunks, finish %q", len(got[1].pieces), got[1].finish)
	}
	if got[2].content != "" || got[2].thinking != Thinking(sky) || got[2].finish != "length" {
		t.Errorf("thinkonly: content %q, thinking %q, finish %q", got[2].content, got[2].thinking, got[2].finish)
	}
	var spent time.Duration
	for _, d := range clock.Waits() {
		spent += d
	}
	if spent != 5*time.Second {
		t.Errorf("spent %v thinking, want 2s and 3s", spent)
	}
}

func TestThinkCommandsRejectBadInput(t *testing.T) {
	s, _ := start(t, Options{})
	for _, args := range []string{
		"think", "think deep", "think tags soon", "think tags 0s", "think tags -1s", "think tags 1s more",
		"thinkonly deep", "thinkonly tags 3s", "stallafter", "stallafter 0", "stallafter x", "stallafter 1001",
		"stallafter 1 2", "length 3", "help think now", "help frobnicate", "context", "context 100 gopher",
	} {
		out, err := s.Command(args)
		if err == nil {
			t.Errorf("%q accepted: %q", args, out)
			continue
		}
		name, _, _ := strings.Cut(args, " ")
		// The command's own usage, short enough for the status line of a 120-column screen.
		if msg := err.Error(); !strings.Contains(msg, "; usage: /demo "+name) || len(msg) > 120 {
			t.Errorf("%q: error %q (%d bytes) lacks the command's usage or is too long", args, msg, len(msg))
		}
	}
	if q := queued(s); len(q) != 0 {
		t.Errorf("bad commands queued %q", q)
	}
}

func TestHelp(t *testing.T) {
	s, _ := start(t, Options{})
	all, err := s.Command("help")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range commands {
		if !strings.Contains(all, " "+c.name) {
			t.Errorf("help lacks %s: %q", c.name, all)
		}
	}
	for args, want := range map[string]string{
		"help think":     "usage: /demo think reasoning_content|reasoning|tags|bare|silent [DURATION]",
		"help thinkonly": "usage: /demo thinkonly [reasoning_content|reasoning|tags|bare|silent]",
		"help context":   "usage: /demo context N [openai|llamacpp|vllm|anthropic|deepseek] | context off",
		"help length":    "usage: /demo length",
	} {
		if out, err := s.Command(args); err != nil || out != want {
			t.Errorf("%q: %q %v, want %q", args, out, err, want)
		}
	}
}

func TestFaultsEndpointTakesThinking(t *testing.T) {
	s, c := start(t, Options{})
	base := strings.TrimSuffix(s.URL(), "/v1")
	resp, err := post(t, context.Background(), c, base+"/_demo/faults",
		`[{"think":"tags","think_for":3000000000,"think_text":"Hm.","think_only":true,"finish":"length","stall_after":2},{"max_answer":4,"cut_after":9}]`)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if q := strings.Join(queued(s), " | "); resp.StatusCode != 200 || q != "think tags 3s, no answer, finish length, stall after 2 chunks | answer of 4 chunks, cut after 9 chunks" {
		t.Fatalf("%d, queued %q", resp.StatusCode, q)
	}
	if f := queuedFaults(s)[0]; f.ThinkText != "Hm." {
		t.Errorf("think_text %q", f.ThinkText)
	}
	resp, err = post(t, context.Background(), c, base+"/_demo/faults", `[{"think":"deep"}]`)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || !strings.Contains(string(msg), `unknown think shape "deep"`) || len(queued(s)) != 2 {
		t.Fatalf("a bad shape: %d %q, queue %q", resp.StatusCode, msg, queued(s))
	}
}
