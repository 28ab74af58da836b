package cli

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// Reasoning models in print mode: thinking in every shape servers send it, a silent thinker,
// a drop or a stall mid-reply, the token limit, and --show-reasoning. The deadlines are the
// client's real timers against the server's real pace.

// reasoningJSON is the part of print mode's --json object about thinking.
type reasoningJSON struct {
	printJSON
	Reasoning    string `json:"reasoning"`
	FinishReason string `json:"finish_reason"`
}

// profileUser is a user whose config.toml has one profile, "local", for srv and model, with
// the extra settings given.
func profileUser(t *testing.T, srv *demo.Server, model string, settings ...string) *user {
	t.Helper()
	u := newUser(t)
	cfg := fmt.Sprintf("profile = \"local\"\n[profiles.local]\nbase_url = %q\nmodel = %q\n%s\n",
		srv.URL(), model, strings.Join(settings, "\n"))
	u.writeConfig(cfg)
	return u
}

// Six seconds of thinking, in each shape servers send it, against a three-second first-delta
// deadline: one request, the answer alone as the text, the thinking apart.
func TestPrintModeThinkingInEveryShape(t *testing.T) {
	t.Parallel()
	skipRealTime(t)
	for _, shape := range []demo.ThinkShape{demo.ThinkReasoningContent, demo.ThinkReasoning, demo.ThinkTags, demo.ThinkBare} {
		t.Run(string(shape), func(t *testing.T) {
			t.Parallel()
			srv := demotest.Start(t, demo.Options{Pace: time.Millisecond}, demo.Fault{Think: shape, ThinkFor: 6 * time.Second})
			u := profileUser(t, srv, "deepseek-r1:14b", `first_delta_timeout = "3s"`)
			r := u.run("-p", "what is tcp", "--json")
			res := decode[reasoningJSON](t, r.stdout)
			if r.code != 0 || srv.Requests() != 1 {
				t.Fatalf("exit %d after %d requests: %s", r.code, srv.Requests(), r.stderr)
			}
			if res.Text == "" || strings.Contains(res.Text, "think>") || strings.Contains(res.Text, "The user asks") {
				t.Errorf("text is not the answer alone: %q", res.Text)
			}
			if !strings.HasPrefix(strings.TrimSpace(res.Reasoning), "The user asks") || strings.Contains(res.Reasoning, "think>") {
				t.Errorf("reasoning %q", res.Reasoning)
			}
			// The next request of the session carries the answer, and no thinking.
			u.run("-c", "-p", "and udp?")
			last := srv.Received()[1].Messages
			if len(last) != 3 || last[1].Content != res.Text || strings.Contains(string(srv.Received()[1].Body), "The user asks") {
				t.Errorf("the next request carried %+v", last)
			}
		})
	}
}

// A reasoning model may think in silence for longer than 90 s: its deadline is ten minutes,
// and a five-second silence after the role chunk is waited for.
func TestPrintModeSilentThinkerIsWaitedFor(t *testing.T) {
	t.Parallel()
	skipRealTime(t)
	srv := demotest.Start(t, demo.Options{Pace: time.Millisecond}, demo.Fault{Think: demo.ThinkSilent, ThinkFor: 5 * time.Second})
	u := profileUser(t, srv, "house-model", "reasoning = true")
	if r := u.run("-p", "hard question"); r.code != 0 || srv.Requests() != 1 || r.stdout == "" {
		t.Fatalf("exit %d after %d requests: %s", r.code, srv.Requests(), r.stderr)
	}
}

// A connection dropped while the model thinks: no second request, a retryable failure, the
// thinking kept.
func TestPrintModeDropWhileThinking(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{Pace: time.Millisecond}, demo.Fault{Think: demo.ThinkReasoningContent, CutAfter: 5})
	u := profileUser(t, srv, "deepseek-reasoner")
	r := u.run("-p", "what is tcp", "--json")
	res := decode[reasoningJSON](t, r.stdout)
	if r.code != 3 || srv.Requests() != 1 || res.Retry == nil || !res.Retry.Retryable || res.Reasoning == "" {
		t.Fatalf("exit %d after %d requests: %+v", r.code, srv.Requests(), res)
	}
	exp := u.run("export", res.SessionID, "--markdown")
	if !strings.Contains(exp.stdout, strings.TrimSpace(res.Reasoning)) {
		t.Errorf("the thinking is not in the export:\n%s", exp.stdout)
	}
}

// A stream that stalls after three words ends within the idle timeout as a retryable
// timeout, the three words kept.
func TestPrintModeStallAfterTheFirstWords(t *testing.T) {
	t.Parallel()
	skipRealTime(t)
	srv := demotest.Start(t, demo.Options{Pace: time.Millisecond}, demo.Fault{StallAfter: 3})
	u := profileUser(t, srv, "m", `stream_idle_timeout = "2s"`)
	start := time.Now()
	r := u.run("-p", "what is tcp", "--json")
	took := time.Since(start)
	res := decode[reasoningJSON](t, r.stdout)
	if r.code != 3 || res.Retry == nil || res.Retry.RetryClass != "timeout" || srv.Requests() != 1 {
		t.Fatalf("exit %d after %d requests: %+v %s", r.code, srv.Requests(), res.Retry, r.stderr)
	}
	if took > 10*time.Second { // a stall not ended would last as long as the test
		t.Errorf("took %s", took)
	}
	if res.Text == "" || len(strings.Fields(res.Text)) > 3 {
		t.Errorf("kept %q; want the three words", res.Text)
	}
}

// A reply cut at the token limit says so.
func TestPrintModeLengthSaysSo(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{Pace: time.Millisecond}, demo.Fault{Finish: "length", MaxAnswer: 16})
	u := profileUser(t, srv, "deepseek-reasoner", "max_tokens = 64")
	r := u.run("-p", "long answer please", "--json")
	if res := decode[reasoningJSON](t, r.stdout); r.code != 0 || res.FinishReason != "length" ||
		!strings.Contains(r.stderr, "stopped at the token limit\n") {
		t.Errorf("exit %d, %+v, stderr %q", r.code, res, r.stderr)
	}
	if body := string(srv.Received()[0].Body); !strings.Contains(body, `"max_tokens":64`) {
		t.Errorf("max_tokens not sent: %s", body)
	}
}

// A reply whose thinking used up the token limit has no answer: print mode fails it (exit 1:
// the same request would stop the same way) naming the fix, though the run is stored as it
// ended, succeeded.
func TestPrintModeThinkingThatUsesUpTheLimitFails(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{Pace: time.Millisecond})
	thinkOnly := demo.Fault{Think: demo.ThinkReasoningContent, ThinkOnly: true, Finish: "length"}
	srv.Push(thinkOnly, thinkOnly)
	u := profileUser(t, srv, "deepseek-reasoner", "max_tokens = 64")
	const fix = "stopped at the token limit while thinking — no answer: raise max_tokens (64) in [profiles.local] of config.toml, or lower its reasoning_effort"
	r := u.run("-p", "think hard", "--json")
	res := decode[reasoningJSON](t, r.stdout)
	if r.code != 1 || res.Status != "failed" || res.Text != "" || res.Reasoning == "" || res.FinishReason != "length" ||
		res.Error == nil || *res.Error != "Empty response — "+fix || res.Retry == nil || res.Retry.Retryable || res.Retry.RetryClass != "empty_response" {
		t.Errorf("exit %d, %+v %+v", r.code, res, res.Retry)
	}
	if want := "parley: Empty response — " + fix + " (not retryable, session " + res.SessionID + ")\n"; !strings.HasSuffix(r.stderr, want) {
		t.Errorf("stderr %q; want it to end %q", r.stderr, want)
	}
	e := decode[exportJSON](t, u.run("export", res.SessionID, "--json").stdout)
	if reply := e.Messages[1]; reply.Status != "succeeded" {
		t.Errorf("stored as %s; the run ended as the endpoint ended it", reply.Status)
	}
	if r := u.run("-p", "think hard"); r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, fix) {
		t.Errorf("without --json: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// --show-reasoning writes the thinking to stderr; stdout keeps the answer alone.
func TestPrintModeShowReasoning(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{Pace: time.Millisecond}, demo.Fault{Think: demo.ThinkReasoning, ThinkText: "Recall the handshake first."})
	u := profileUser(t, srv, "m")
	r := u.run("-p", "what is tcp", "--show-reasoning")
	if r.code != 0 || !strings.Contains(r.stderr, "Recall the handshake first.") || strings.Contains(r.stdout, "Recall") {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}

	// The thinking ends its line: what parley says next on stderr starts on its own.
	srv.Push(demo.Fault{Think: demo.ThinkReasoning, ThinkText: "Short.", Finish: "length", MaxAnswer: 1})
	r = u.run("-p", "again", "--show-reasoning")
	if !strings.Contains(r.stderr, "Short.\nparley: ") {
		t.Errorf("stderr %q: the note after the thinking is glued to it", r.stderr)
	}
}
