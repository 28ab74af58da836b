package history

import (
	"context"
	"strings"
	"testing"
	"time"

	"parley/agent"
	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/demo"
	"parley/internal/demo/demotest"
	"parley/retry"
)

// finish runs r through to status st with usage u, on model's run.
func finishWithUsage(t *testing.T, db *DB, sessionID, model string, st chat.Status, u chat.Usage) stored.Receipt {
	t.Helper()
	r, err := db.Post(sessionID, "question", model, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.StartRun(r.RunID); err != nil {
		t.Fatal(err)
	}
	f := stored.Finish{Status: st, Attempts: 1, Usage: u}
	if st == chat.StatusFailed {
		f.Retry = &chat.Classification{Class: chat.Network, Retryable: true}
	}
	if err := db.FinishRun(r.RunID, f); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestUsageIsSummedPerModelFromRuns(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	a, b := newSession(t, db), newSession(t, db)
	finishWithUsage(t, db, a.ID, "gpt-4o", chat.StatusSucceeded, chat.Usage{PromptTokens: 100, CompletionTokens: 20})
	finishWithUsage(t, db, a.ID, "gpt-4o", chat.StatusFailed, chat.Usage{PromptTokens: 50, CompletionTokens: 5})
	finishWithUsage(t, db, a.ID, "local", chat.StatusCancelled, chat.Usage{PromptTokens: 7, CompletionTokens: 3})
	old := finishWithUsage(t, db, b.ID, "gpt-4o", chat.StatusSucceeded, chat.Usage{PromptTokens: 1000, CompletionTokens: 1000})
	post(t, db, b.ID, "still queued: no usage yet")

	got, err := db.SessionUsage(a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["gpt-4o"] != (chat.Usage{PromptTokens: 150, CompletionTokens: 25}) || got["local"] != (chat.Usage{PromptTokens: 7, CompletionTokens: 3}) {
		t.Fatalf("session a: %+v", got)
	}

	// A run that ended yesterday is not today's.
	midnight := time.Now().Truncate(24 * time.Hour)
	if _, err := rawSQL(t, db.Path()).Exec(`UPDATE runs SET finished_at = ? WHERE id = ?`,
		midnight.Add(-time.Hour).UnixNano(), old.RunID); err != nil {
		t.Fatal(err)
	}
	day, err := db.UsageSince(midnight)
	if err != nil {
		t.Fatal(err)
	}
	if day["gpt-4o"] != (chat.Usage{PromptTokens: 150, CompletionTokens: 25}) || len(day) != 2 {
		t.Fatalf("since midnight: %+v", day)
	}
	all, err := db.UsageSince(time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if all["gpt-4o"].PromptTokens != 1150 {
		t.Fatalf("since the beginning: %+v", all)
	}
	if none, err := db.SessionUsage("nosuchid"); err != nil || len(none) != 0 {
		t.Fatalf("unknown session: %+v %v", none, err)
	}
}

// spendRig is a database, a fake endpoint and a client, as print mode and the screen use them.
type spendRig struct {
	t      *testing.T
	db     *DB
	srv    *demo.Server
	client *agent.Client
}

func newSpendRig(t *testing.T) *spendRig {
	srv := demotest.Start(t, demo.Options{})
	client := agent.NewClient(agent.Endpoint{BaseURL: srv.URL(), Model: "paid"}, chat.SystemClock{}, retry.DefaultPolicy())
	return &spendRig{t: t, db: openTemp(t), srv: srv, client: client}
}

// send posts prompt in session and runs it under limits, through Record; it returns the
// stored run.
func (r *spendRig) send(sessionID, prompt string, limits agent.Limits) stored.Run {
	r.t.Helper()
	rcpt, err := r.db.Post(sessionID, prompt, "paid", false)
	if err != nil {
		r.t.Fatal(err)
	}
	msgs, err := r.db.Context(rcpt.AnchorID)
	if err != nil {
		r.t.Fatal(err)
	}
	b := &agent.SpendGuard{Prices: agent.Prices{"paid": {Input: 1000, Output: 1000}}, Limits: limits, Ledger: r.db, Clock: chat.SystemClock{}}
	for range r.db.Record(rcpt.RunID, b.Stream(context.Background(), r.client, sessionID, msgs), chat.SystemClock{}) {
	}
	run, err := r.db.Run(rcpt.RunID)
	if err != nil {
		r.t.Fatal(err)
	}
	return run
}

func refused(run stored.Run) bool {
	return run.Status == chat.StatusFailed && run.Retry != nil && run.Retry.Class == chat.SpendLimitExceeded &&
		!run.Retry.Retryable && run.Attempts == 0
}

func TestSpendLimitCrossedByTheEstimateSendsNothing(t *testing.T) {
	t.Parallel()
	r := newSpendRig(t)
	s := newSession(t, r.db)
	run := r.send(s.ID, strings.Repeat("long prompt ", 100), agent.Limits{SessionTokens: 200})
	if !refused(run) || r.srv.Requests() != 0 {
		t.Fatalf("run %+v after %d requests, want stored as failed spend_limit_exceeded with no request", run, r.srv.Requests())
	}
	// The operator message is stored all the same.
	msgs, err := r.db.Transcript(s.ID)
	if err != nil || len(msgs) != 2 || msgs[0].Content != strings.Repeat("long prompt ", 100) {
		t.Fatalf("transcript %+v %v", msgs, err)
	}
}

func TestSpendLimitCrossedByUsageStopsTheNextRequest(t *testing.T) {
	t.Parallel()
	r := newSpendRig(t)
	s := newSession(t, r.db)
	// $0.001 a token: the first prompt's estimate (about $0.010) fits under $0.05, and the
	// reply's reported usage takes the session past it.
	limits := agent.Limits{SessionCost: 0.05}
	first := r.send(s.ID, "tell me about retries", limits)
	if first.Status != chat.StatusSucceeded || first.Usage.CompletionTokens == 0 {
		t.Fatalf("first run %+v", first)
	}
	spent := float64(first.Usage.PromptTokens+first.Usage.CompletionTokens) / 1000
	if spent <= 0.05 {
		t.Fatalf("the first reply cost $%.3f; the test needs it past the $0.05 limit", spent)
	}
	second := r.send(s.ID, "hi", limits)
	if !refused(second) || r.srv.Requests() != 1 || !strings.Contains(second.Retry.Message, "this session") {
		t.Fatalf("second run %+v after %d requests, want refused before sending", second, r.srv.Requests())
	}
	// Another session has its own session limit.
	other := newSession(t, r.db)
	if run := r.send(other.ID, "hi", limits); run.Status != chat.StatusSucceeded || r.srv.Requests() != 2 {
		t.Fatalf("a fresh session: %+v after %d requests", run, r.srv.Requests())
	}
}

func TestDailyLimitSurvivesARestart(t *testing.T) {
	t.Parallel()
	r := newSpendRig(t)
	limits := agent.Limits{DayTokens: 200}
	first := r.send(newSession(t, r.db).ID, "tell me about retries", limits)
	if first.Status != chat.StatusSucceeded || first.Usage.PromptTokens+first.Usage.CompletionTokens <= 200 {
		t.Fatalf("first run %+v: the test needs it past 200 tokens", first)
	}
	path := r.db.Path()
	if err := r.db.Close(); err != nil {
		t.Fatal(err)
	}
	// A new process: a new handle, a new session, nothing in memory.
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	r.db = db
	run := r.send(newSession(t, db).ID, "hi", limits)
	if !refused(run) || r.srv.Requests() != 1 || !strings.Contains(run.Retry.Message, "today") {
		t.Fatalf("after a restart: %+v after %d requests, want refused by the daily limit", run, r.srv.Requests())
	}
	if y, m, d := time.Now().AddDate(0, 0, 1).Date(); !run.Retry.RetryAfterUntil.Equal(time.Date(y, m, d, 0, 0, 0, 0, time.Local)) {
		t.Fatalf("the daily limit resets at %v, want the next midnight", run.Retry.RetryAfterUntil)
	}
}
