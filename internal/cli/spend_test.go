package cli

import (
	"fmt"
	"strings"
	"testing"

	"parley/internal/demo"
	"parley/internal/demo/demotest"
	"parley/internal/mcp"
)

// Long conversations and spend limits in print mode: compaction on an overflow, the limits
// checked before sending and counted from history.

// spendJSON is the part of print mode's --json that reports spend and compaction.
type spendJSON struct {
	printJSON
	Usage struct {
		PromptTokens     int  `json:"prompt_tokens"`
		CompletionTokens int  `json:"completion_tokens"`
		Estimated        bool `json:"estimated"`
	} `json:"usage"`
	CostUSD         float64 `json:"cost_usd"`
	OmittedMessages int     `json:"omitted_messages"`
}

// longSession makes a session of turns operator messages and replies in u's history, against
// srv, and returns its id.
func longSession(t *testing.T, u *user, srv *demo.Server, turns int) string {
	t.Helper()
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 20)
	id := ""
	for i := range turns {
		args := []string{"-p", fmt.Sprintf("question %d: %s", i, filler), "--base-url", srv.URL(), "--model", "m", "--json"}
		if id != "" {
			args = append(args, "--session", id)
		}
		r := u.run(args...)
		if r.code != 0 {
			t.Fatalf("building the session: exit %d %s", r.code, r.stderr)
		}
		id = decode[printJSON](t, r.stdout).SessionID
	}
	return id
}

// Against a server that rejects prompts above a token budget, in each provider's form: a long
// session compacts once and succeeds; history keeps every message.
func TestPrintModeCompactsALongSessionOnOverflow(t *testing.T) {
	t.Parallel()
	for _, form := range demo.Overflows {
		t.Run(string(form), func(t *testing.T) {
			t.Parallel()
			u, srv := newServedUser(t)
			id := longSession(t, u, srv, 5)
			srv.SetContext(500, form)
			before := srv.Requests()
			r := u.run("-p", "and in short?", "--session", id, "--base-url", srv.URL(), "--model", "m", "--json")
			out := decode[spendJSON](t, r.stdout)
			if r.code != 0 || out.Status != "succeeded" || srv.Requests()-before != 2 || out.Attempts != 2 {
				t.Fatalf("exit %d after %d requests, %+v, stderr %q", r.code, srv.Requests()-before, out, r.stderr)
			}
			sent := srv.Received()[srv.Requests()-1].Messages
			if out.OmittedMessages == 0 || len(sent) != 11-out.OmittedMessages || sent[len(sent)-1].Content != "and in short?" {
				t.Fatalf("omitted %d; the re-run carried %d messages ending %q", out.OmittedMessages, len(sent), sent[len(sent)-1].Content)
			}
			if !strings.Contains(r.stderr, fmt.Sprintf("parley: %d earlier messages left out to fit the model's context", out.OmittedMessages)) {
				t.Fatalf("stderr %q lacks the note", r.stderr)
			}
			e := decode[exportJSON](t, u.run("export", id, "--json").stdout)
			if len(e.Messages) != 12 {
				t.Fatalf("history holds %d messages, want all 12", len(e.Messages))
			}
		})
	}
}

func TestPrintModeOversizeMessageFailsAsContextOverflow(t *testing.T) {
	t.Parallel()
	for _, form := range demo.Overflows {
		t.Run(string(form), func(t *testing.T) {
			t.Parallel()
			srv := demotest.Start(t, demo.Options{ContextTokens: 100, Overflow: form})
			r := newUser(t).run("-p", strings.Repeat("much too long ", 100), "--base-url", srv.URL(), "--model", "m", "--json")
			out := decode[printJSON](t, r.stdout)
			if r.code != 1 || out.Retry == nil || out.Retry.RetryClass != "context_overflow" || out.Retry.Retryable || srv.Requests() > 2 {
				t.Fatalf("exit %d after %d requests, %+v", r.code, srv.Requests(), out.Retry)
			}
		})
	}
}

func TestPrintModeCompactsBeforeSendingWithAConfiguredContext(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	id := longSession(t, u, srv, 5)
	srv.SetContext(500, demo.OverflowOpenAI)
	cfg := fmt.Sprintf("[profiles.small]\nbase_url = %q\nmodel = \"m\"\ncontext_tokens = 600\n", srv.URL())
	u.writeConfig(cfg)
	before := srv.Requests()
	r := u.run("-p", "and in short?", "--session", id, "--profile", "small", "--json")
	out := decode[spendJSON](t, r.stdout)
	if r.code != 0 || srv.Requests()-before != 1 || out.OmittedMessages == 0 {
		t.Fatalf("exit %d after %d requests, omitted %d, stderr %q", r.code, srv.Requests()-before, out.OmittedMessages, r.stderr)
	}
}

func TestPrintModeSpendLimitCrossedByTheEstimateSendsNothing(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	r := u.run("-p", strings.Repeat("a long prompt ", 100), "--base-url", srv.URL(), "--model", "m", "--max-tokens-session", "100", "--json")
	out := decode[printJSON](t, r.stdout)
	if r.code != 1 || srv.Requests() != 0 || out.Retry == nil || out.Retry.RetryClass != "spend_limit_exceeded" || out.Retry.Retryable || out.Attempts != 0 {
		t.Fatalf("exit %d after %d requests, %+v", r.code, srv.Requests(), out)
	}
	// Nothing was sent: the new session is not kept.
	if out.SessionID != "" || u.run("sessions").stdout != "" {
		t.Fatalf("session %q kept: %s", out.SessionID, u.run("sessions").stdout)
	}
}

func TestPrintModeSpendLimitCrossedByUsageStopsTheNextRequest(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	// The first prompt's estimate is well under 150 tokens; the reply takes the session past it.
	first := decode[spendJSON](t, u.run("-p", "tell me about retries", "--base-url", srv.URL(), "--model", "m", "--max-tokens-session", "150", "--json").stdout)
	if first.Status != "succeeded" || first.Usage.PromptTokens+first.Usage.CompletionTokens <= 150 {
		t.Fatalf("first run %+v: the test needs it past 150 tokens", first)
	}
	r := u.run("-p", "hi", "-c", "--base-url", srv.URL(), "--model", "m", "--max-tokens-session", "150", "--json")
	out := decode[printJSON](t, r.stdout)
	if r.code != 1 || srv.Requests() != 1 || out.Retry == nil || out.Retry.RetryClass != "spend_limit_exceeded" {
		t.Fatalf("exit %d after %d requests, %+v", r.code, srv.Requests(), out.Retry)
	}
}

// The daily money limit is counted from history: it holds in the next process, for a new
// session, and prices come from OpenAI's presets or the profile.
func TestPrintModeDailySpendLimitSurvivesARestart(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	first := decode[spendJSON](t, u.run("-p", "tell me about retries", "--base-url", srv.URL(), "--model", "gpt-4o", "--max-spend", "0.002", "--json").stdout)
	want := (float64(first.Usage.PromptTokens)*2.50 + float64(first.Usage.CompletionTokens)*10) / 1e6
	if first.Status != "succeeded" || first.CostUSD != want || first.CostUSD <= 0.002 {
		t.Fatalf("first run %+v, cost %v want %v (past $0.002)", first, first.CostUSD, want)
	}
	r := u.run("-p", "hi", "--base-url", srv.URL(), "--model", "gpt-4o", "--max-spend", "$0.002", "--json")
	out := decode[printJSON](t, r.stdout)
	if r.code != 1 || srv.Requests() != 1 || out.Retry == nil || out.Retry.RetryClass != "spend_limit_exceeded" || out.Retry.RetryAfterUntil == nil {
		t.Fatalf("exit %d after %d requests, %+v", r.code, srv.Requests(), out.Retry)
	}
	// The same limit from config, in another process: still refused. An unpriced model costs
	// nothing, so it may go on.
	cfg := fmt.Sprintf("[limits]\nmax_spend_day = 0.002\n\n[profiles.paid]\nbase_url = %q\nmodel = \"house-model\"\nprice_input = 2.5\nprice_output = 10\n", srv.URL())
	u.writeConfig(cfg)
	if r := u.run("-p", "hi", "--base-url", srv.URL(), "--model", "gpt-4o"); r.code != 1 || srv.Requests() != 1 {
		t.Fatalf("config limit: exit %d after %d requests, %s", r.code, srv.Requests(), r.stderr)
	}
	if r := u.run("-p", "hi", "--base-url", srv.URL(), "--model", "local-model"); r.code != 0 || srv.Requests() != 2 {
		t.Fatalf("unpriced model: exit %d after %d requests, %s", r.code, srv.Requests(), r.stderr)
	}
	paid := decode[spendJSON](t, u.run("-p", "hi", "--profile", "paid", "--json").stdout)
	if paid.Retry == nil || paid.Retry.RetryClass != "spend_limit_exceeded" || srv.Requests() != 2 {
		t.Fatalf("priced profile: %+v after %d requests", paid.Retry, srv.Requests())
	}
}

// With tools on, a request the spend limit refuses is not sent either: the tool loop's model
// calls go through the spend guard as a lone call does.
func TestPrintModeSpendLimitHoldsWithToolsOn(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	// A server that cannot start leaves its tools on: the run is the tool loop's.
	u.writeConfig(toolConfig(srv, mcp.Server{Name: "ghost", Command: []string{"parley-no-such-server"}}))
	r := u.run("-p", strings.Repeat("a long prompt ", 100), "--max-tokens-session", "100", "--json")
	out := decode[printJSON](t, r.stdout)
	if r.code != 1 || srv.Requests() != 0 || out.Retry == nil || out.Retry.RetryClass != "spend_limit_exceeded" {
		t.Fatalf("exit %d after %d requests, %+v, stderr %q", r.code, srv.Requests(), out, r.stderr)
	}
	if !strings.Contains(r.stderr, `mcp server "ghost"`) {
		t.Fatalf("the run did not go through the tool loop: stderr %q", r.stderr)
	}
}
