package history

import (
	"reflect"
	"testing"

	"parley/history/stored"
	"parley/internal/chat"
)

// overloaded is the failure of a model call after a tool's result.
var overloaded = chat.Classification{Retryable: true, Class: chat.Overloaded, Label: "Overloaded", Message: "503"}

// callTool stores call as step step of run r at seam, and its end as res.
func callTool(t *testing.T, db *DB, r stored.Receipt, step, seam int, call chat.ToolCall, res chat.ToolResult) int64 {
	t.Helper()
	id, err := db.BeginToolCall(r.RunID, step, seam, call, res.Server, res.Tool)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != chat.ToolPending {
		if err := db.EndToolCall(id, res); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

var (
	echoCall = chat.ToolCall{ID: "call_1", Function: "echo", Arguments: `{"message":"hi"}`}
	sumCall  = chat.ToolCall{ID: "call_2", Function: "get-sum", Arguments: `{"a":2,"b":3}`}
	echoRan  = chat.ToolResult{Status: chat.ToolRan, Server: "everything", Tool: "echo", Text: "Echo: hi", Size: 8}
	sumRan   = chat.ToolResult{Status: chat.ToolRan, Server: "everything", Tool: "get-sum", Text: "The sum of 2 and 3 is 5.", Size: 24}
)

// echoThenSum stores, in session, a question whose reply calls echo, then get-sum with the
// result sum (its status pending: no end stored), and runs on.
func echoThenSum(t *testing.T, db *DB, session string, sum chat.ToolResult) stored.Receipt {
	t.Helper()
	r := post(t, db, session, "echo hi, then add 2 and 3")
	streaming(t, db, r, "Let me look.")
	callTool(t, db, r, 0, len("Let me look."), echoCall, echoRan)
	callTool(t, db, r, 1, len("Let me look."), sumCall, sum)
	return r
}

// sumPending stores, in session, question and a reply that says "Calling." and calls echo
// (which ran) and get-sum (left pending: no end stored) in one step, and runs on.
func sumPending(t *testing.T, db *DB, session, question string) stored.Receipt {
	t.Helper()
	r := post(t, db, session, question)
	streaming(t, db, r, "Calling.")
	callTool(t, db, r, 0, len("Calling."), echoCall, echoRan)
	callTool(t, db, r, 0, len("Calling."), sumCall, chat.ToolResult{Status: chat.ToolPending, Server: "everything", Tool: "get-sum"})
	return r
}

// echoThenSumSent is what a later request carries of echoThenSum's turn, get-sum's result
// going back as sumText.
func echoThenSumSent(sumText string) []chat.Message {
	return []chat.Message{
		{Role: chat.RoleUser, Content: "echo hi, then add 2 and 3"},
		{Role: chat.RoleAssistant, Content: "Let me look.", ToolCalls: []chat.ToolCall{echoCall}},
		{Role: chat.RoleTool, ToolCallID: "call_1", Content: "Echo: hi"},
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{sumCall}},
		{Role: chat.RoleTool, ToolCallID: "call_2", Content: sumText},
	}
}

// A reply that called tools goes back in later turns as the turns it was: each step's text
// with its calls, the results, then the text after them.
func TestToolCallsGoBackInLaterTurns(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	r := echoThenSum(t, db, s.ID, sumRan)
	if err := db.AppendReply(r.RunID, " It is 5.", ""); err != nil {
		t.Fatal(err)
	}
	if err := db.FinishRun(r.RunID, stored.Finish{Status: chat.StatusSucceeded, Attempts: 3}); err != nil {
		t.Fatal(err)
	}
	next := post(t, db, s.ID, "thanks")
	got, err := db.Context(next.AnchorID)
	if err != nil {
		t.Fatal(err)
	}
	want := append(echoThenSumSent("The sum of 2 and 3 is 5."),
		chat.Message{Role: chat.RoleAssistant, Content: " It is 5."}, chat.Message{Role: chat.RoleUser, Content: "thanks"})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("context\n%+v\nwant\n%+v", got, want)
	}
	msgs, err := db.Transcript(s.ID)
	if err != nil || len(msgs[1].ToolCalls) != 2 || msgs[1].ToolCalls[1].Result != sumRan || msgs[1].ToolCalls[1].Call != sumCall {
		t.Errorf("transcript %+v, %v", msgs, err)
	}
	if err := db.EndToolCall(msgs[1].ToolCalls[0].ID, chat.ToolResult{Status: chat.ToolFailed}); err == nil {
		t.Error("a call that ended was changed again")
	}
}

// A reply whose only output is a tool call is sent back, though it has no text.
func TestACallWithoutTextIsSentBack(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	r := post(t, db, s.ID, "add")
	if err := db.StartRun(r.RunID); err != nil {
		t.Fatal(err)
	}
	callTool(t, db, r, 0, 0, sumCall, chat.ToolResult{Status: chat.ToolRefused, Text: "the operator refused this call"})
	if err := db.FinishRun(r.RunID, stored.Finish{Status: chat.StatusCancelled}); err != nil {
		t.Fatal(err)
	}
	got, err := db.SessionContext(s.ID)
	if err != nil || len(got) != 3 || got[2].Role != chat.RoleTool || got[2].Content != "the operator refused this call" {
		t.Errorf("session context %+v, %v", got, err)
	}
}

// A model call that fails after a tool's result is retried from the stored results: the
// retry's context carries them, its reply begins with the text before them, and the call
// is not asked for again. A call left pending goes back as one that may have run.
func TestRetryResumesFromStoredResults(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	r := sumPending(t, db, s.ID, "echo hi")
	if err := db.AppendReply(r.RunID, " and then half a sen", ""); err != nil {
		t.Fatal(err)
	}
	if err := db.FinishRun(r.RunID, stored.Finish{Status: chat.StatusFailed, Retry: &overloaded}); err != nil {
		t.Fatal(err)
	}
	retry, err := db.RetryRun(r.RunID, "test-model", false)
	if err != nil || !retry.Pending || retry.AnchorID != r.AnchorID {
		t.Fatalf("retry %+v, %v", retry, err)
	}
	msgs, progress, err := db.RunContext(retry.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if progress != (stored.Progress{Steps: 1, Seam: len("Calling.")}) || len(msgs) != 4 ||
		msgs[1].Content != "Calling." || len(msgs[1].ToolCalls) != 2 ||
		msgs[2].Content != "Echo: hi" || msgs[3].ToolCallID != "call_2" || msgs[3].Content != stored.PendingText {
		t.Fatalf("progress %+v, context %+v", progress, msgs)
	}
	// The old reply stays live until the retry has output: here, its next text.
	if live, _ := db.Transcript(s.ID); live[1].ID != r.ReplyID {
		t.Errorf("live before output: %+v", live)
	}
	if err := db.StartRun(retry.RunID); err != nil {
		t.Fatal(err)
	}
	if err := db.AppendReply(retry.RunID, " Done.", ""); err != nil {
		t.Fatal(err)
	}
	live, err := db.Transcript(s.ID)
	if err != nil || len(live) != 2 || live[1].ID != retry.ReplyID || live[1].Content != "Calling. Done." || len(live[1].ToolCalls) != 2 {
		t.Errorf("live after output: %+v, %v", live, err)
	}
	plain := post(t, db, s.ID, "no tools")
	runTo(t, db, plain, "x", stored.Finish{Status: chat.StatusFailed, Retry: &overloaded})
	again, err := db.RetryRun(plain.RunID, "test-model", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, progress, _ := db.RunContext(again.RunID); progress != (stored.Progress{}) {
		t.Errorf("a run without calls resumed: %+v", progress)
	}
}

// testdata/v13.db was made by the release before tool calls (the built binary, in print
// mode against the demo endpoint, with -c): it migrates without loss and then stores them.
func TestSchema13DatabaseTakesToolCalls(t *testing.T) {
	t.Parallel()
	db := openCopy(t, "testdata/v13.db")
	session := onlySession(t, db)
	before, err := db.Transcript(session.ID)
	if err != nil || len(before) != 4 || before[0].Content != "hello there" || before[2].Content != "what are the keys?" ||
		before[3].Status != chat.StatusSucceeded || len(before[3].ToolCalls) != 0 {
		t.Fatalf("messages %+v, %v", before, err)
	}
	r := post(t, db, session.ID, "echo hi")
	streaming(t, db, r, "")
	callTool(t, db, r, 0, 0, echoCall, echoRan)
	if err := db.FinishRun(r.RunID, stored.Finish{Status: chat.StatusSucceeded}); err != nil {
		t.Fatal(err)
	}
	next := post(t, db, session.ID, "and?")
	ctx, err := db.Context(next.AnchorID)
	if err != nil || len(ctx) != 8 || ctx[4].Content != "echo hi" || len(ctx[5].ToolCalls) != 1 || ctx[6].Content != "Echo: hi" {
		t.Fatalf("context after migrating: %+v, %v", ctx, err)
	}
}

// A call left pending by a parley that was killed is not pending for good: the recovery
// that marks its run interrupted ends it as one that may have run, and the reply can be
// continued from its stored results, none run again.
func TestACallPendingAtACrashMayHaveRunAndGoesOn(t *testing.T) {
	t.Parallel()
	a, s := openSession(t)
	sumPending(t, a, s.ID, "echo hi and add")
	b := crash(t, a)
	live, err := b.Transcript(s.ID)
	if err != nil || len(live) != 2 || live[1].Status != chat.StatusInterrupted || len(live[1].ToolCalls) != 2 {
		t.Fatalf("transcript %+v, %v", live, err)
	}
	pending := live[1].ToolCalls[1]
	if pending.Result.Status != chat.ToolFailed || pending.Result.Text != chat.ToolMayHaveRun || pending.FinishedAt.IsZero() ||
		chat.ToolOutcome(pending.Result) != "may have run" {
		t.Errorf("the call left pending is now %+v (%q)", pending, chat.ToolOutcome(pending.Result))
	}
	if !live[1].Continuable() {
		t.Fatal("the interrupted reply cannot be continued")
	}
	next, err := b.Continue(live[1].ID, "test-model", false)
	if err != nil {
		t.Fatal(err)
	}
	msgs, progress, err := b.RunContext(next.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if progress != (stored.Progress{Steps: 1, Seam: len("Calling.")}) || len(msgs) != 4 || len(msgs[1].ToolCalls) != 2 ||
		msgs[2].Content != "Echo: hi" || msgs[3].ToolCallID != "call_2" || msgs[3].Content != chat.ToolMayHaveRun {
		t.Fatalf("progress %+v, context %+v", progress, msgs)
	}
}

// A reply that was interrupted while its first call ran, before any text, can be continued
// too: its calls are what it had.
func TestAReplyOfToolCallsAloneIsContinuable(t *testing.T) {
	t.Parallel()
	a, s := openSession(t)
	r := post(t, a, s.ID, "echo hi")
	streaming(t, a, r, "")
	callTool(t, a, r, 0, 0, echoCall, chat.ToolResult{Status: chat.ToolPending, Server: "everything", Tool: "echo"})
	b := crash(t, a)
	live, err := b.Transcript(s.ID)
	if err != nil || len(live) != 2 || !live[1].Continuable() {
		t.Fatalf("transcript %+v, %v: not continuable", live, err)
	}
}
