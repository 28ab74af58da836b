package history

import (
	"errors"
	"sync"
	"testing"
	"time"

	"parley/history/stored"
	"parley/internal/chat"
	"parley/retry"
)

func TestRunTransitions(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	failed := &chat.Classification{Class: chat.CredentialsUnresolved, Label: "API key not set"}

	// fresh returns a queued run; running a started one.
	fresh := func() int64 { return post(t, db, s.ID, "q").RunID }
	running := func() int64 {
		id := fresh()
		if err := db.StartRun(id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	finished := func(f stored.Finish) func() int64 {
		return func() int64 {
			id := running()
			if err := db.FinishRun(id, f); err != nil {
				t.Fatal(err)
			}
			return id
		}
	}

	type step struct {
		name string
		do   func(id int64) error
	}
	start := step{"start", db.StartRun}
	finish := func(st chat.Status) step {
		return step{"finish " + string(st), func(id int64) error {
			f := stored.Finish{Status: st}
			if st == chat.StatusFailed {
				f.Retry = failed
			}
			return db.FinishRun(id, f)
		}}
	}
	for _, c := range []struct {
		from  string
		run   func() int64
		step  step
		allow bool
	}{
		{"queued", fresh, start, true},
		{"queued", fresh, finish(chat.StatusFailed), true},
		{"queued", fresh, finish(chat.StatusCancelled), true},
		{"queued", fresh, finish(chat.StatusSucceeded), false},
		{"queued", fresh, finish(chat.StatusInterrupted), false},
		{"queued", fresh, finish(chat.StatusRunning), false},
		{"running", running, start, false},
		{"running", running, finish(chat.StatusSucceeded), true},
		{"running", running, finish(chat.StatusFailed), true},
		{"running", running, finish(chat.StatusCancelled), true},
		{"running", running, finish(chat.StatusInterrupted), false},
		{"succeeded", finished(stored.Finish{Status: chat.StatusSucceeded}), finish(chat.StatusFailed), false},
		{"succeeded", finished(stored.Finish{Status: chat.StatusSucceeded}), start, false},
		{"cancelled", finished(stored.Finish{Status: chat.StatusCancelled}), finish(chat.StatusSucceeded), false},
		{"failed", finished(stored.Finish{Status: chat.StatusFailed, Retry: failed}), finish(chat.StatusCancelled), false},
	} {
		id := c.run()
		before, err := db.Run(id)
		if err != nil {
			t.Fatal(err)
		}
		err = c.step.do(id)
		after, _ := db.Run(id)
		if c.allow {
			if err != nil {
				t.Errorf("%s → %s: %v", c.from, c.step.name, err)
			}
			continue
		}
		if !errors.Is(err, ErrTransition) {
			t.Errorf("%s → %s: err = %v, want ErrTransition", c.from, c.step.name, err)
		}
		if after.Status != before.Status || !after.FinishedAt.Equal(before.FinishedAt) {
			t.Errorf("%s → %s refused but the run changed: %+v", c.from, c.step.name, after)
		}
	}

	if err := db.StartRun(9999); !errors.Is(err, ErrNotFound) {
		t.Errorf("StartRun of a missing run: %v, want ErrNotFound", err)
	}
	if _, err := db.Run(9999); !errors.Is(err, ErrNotFound) {
		t.Errorf("Run(9999): %v, want ErrNotFound", err)
	}
	// A classification goes with a failed run and only with one.
	if err := db.FinishRun(running(), stored.Finish{Status: chat.StatusFailed}); err == nil {
		t.Error("a failed run was stored without its classification")
	}
	if err := db.FinishRun(running(), stored.Finish{Status: chat.StatusCancelled, Retry: failed}); err == nil {
		t.Error("a cancelled run was stored with a classification")
	}
	// Text goes only into a running run's reply.
	if err := db.AppendReply(fresh(), "early", ""); !errors.Is(err, ErrTransition) {
		t.Errorf("AppendReply to a queued run: %v, want ErrTransition", err)
	}
	if err := db.AppendReply(finished(stored.Finish{Status: chat.StatusSucceeded})(), "late", ""); !errors.Is(err, ErrTransition) {
		t.Errorf("AppendReply to a finished run: %v, want ErrTransition", err)
	}
}

func TestFinishRunStoresOutcome(t *testing.T) {
	t.Parallel()
	db, s := openSession(t)
	r := post(t, db, s.ID, "hello")
	streaming(t, db, r, "Hel")
	if err := db.AppendReply(r.RunID, "lo", ""); err != nil {
		t.Fatal(err)
	}
	until := time.Date(2025, 3, 1, 14, 50, 0, 123456789, time.UTC)
	class := chat.Classification{
		Retryable: true, Class: chat.RateLimited, RetryAfterUntil: until,
		Label: "Rate limited", Message: "Rate limit reached; try again in 50m",
	}
	f := stored.Finish{Status: chat.StatusFailed, Retry: &class, Attempts: 3, Usage: chat.Usage{PromptTokens: 12, CompletionTokens: 2}}
	if err := db.FinishRun(r.RunID, f); err != nil {
		t.Fatal(err)
	}

	run, err := db.Run(r.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if run.ID != r.RunID || run.AnchorID != r.AnchorID || run.ReplyID != r.ReplyID || run.SessionID != s.ID ||
		run.Status != chat.StatusFailed || run.Owner != db.token || run.Model != "test-model" ||
		run.Attempts != 3 || run.Usage != f.Usage {
		t.Errorf("run = %+v", run)
	}
	if run.CreatedAt.IsZero() || run.StartedAt.Before(run.CreatedAt) || run.FinishedAt.Before(run.StartedAt) {
		t.Errorf("run times: created %v started %v finished %v", run.CreatedAt, run.StartedAt, run.FinishedAt)
	}
	if run.Retry == nil || !run.Retry.RetryAfterUntil.Equal(until) {
		t.Fatalf("classification = %+v, want %+v", run.Retry, class)
	}
	got := *run.Retry
	got.RetryAfterUntil = until
	if got != class {
		t.Errorf("classification = %+v, want %+v", got, class)
	}

	msgs, err := db.Transcript(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	m := msgs[1]
	if m.Content != "Hello" || m.Status != chat.StatusFailed || m.Attempts != 3 || m.Model != "test-model" ||
		m.Retry == nil || m.Retry.Class != chat.RateLimited {
		t.Errorf("reply = %+v", m)
	}
	if msgs[0].Retry != nil || msgs[0].Status != "" {
		t.Errorf("operator message carries run details: %+v", msgs[0])
	}
}

func TestRunBelongsToItsOwner(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	other := openAgain(t, db)
	s := newSession(t, db)
	r := post(t, db, s.ID, "mine")
	if err := db.StartRun(r.RunID); err != nil {
		t.Fatal(err)
	}
	if err := other.AppendReply(r.RunID, "stolen", ""); !errors.Is(err, ErrTransition) {
		t.Errorf("another handle appended: %v", err)
	}
	if err := other.FinishRun(r.RunID, stored.Finish{Status: chat.StatusCancelled}); !errors.Is(err, ErrTransition) {
		t.Errorf("another handle finished the run: %v", err)
	}
	run, err := other.Run(r.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != chat.StatusRunning {
		t.Errorf("status = %s, want running", run.Status)
	}
	// A queued run has no owner yet: any parley may cancel it.
	q := post(t, db, s.ID, "queued")
	if err := other.FinishRun(q.RunID, stored.Finish{Status: chat.StatusCancelled}); err != nil {
		t.Errorf("cancelling a queued run from another handle: %v", err)
	}
}

func TestEndpointMemory(t *testing.T) {
	t.Parallel()
	db, other, ep, now := endpointHandles(t)
	c := chat.Classification{Retryable: true, Class: chat.RateLimited, Label: "Rate limited",
		Message: "Rate limit reached", RetryAfterUntil: now.Add(48 * time.Minute)}
	if err := db.RememberWait(ep, c, now); err != nil {
		t.Fatal(err)
	}
	w, said, ok, err := other.Wait(ep, now.Add(time.Minute))
	if err != nil || !ok || !w.RetryAfterUntil.Equal(c.RetryAfterUntil) || !said.Equal(now) ||
		w.Class != chat.RateLimited || w.Message != c.Message {
		t.Fatalf("another parley reads %+v, %v, %v", w, ok, err)
	}
	if _, _, ok, _ := other.Wait(chat.EndpointKey{BaseURL: ep.BaseURL, Model: "gpt-4o-mini", KeyEnv: ep.KeyEnv}, now); ok {
		t.Error("another model on the same endpoint is held")
	}
	if _, _, ok, _ := other.Wait(ep, c.RetryAfterUntil); ok {
		t.Error("held once the time has passed")
	}
	if _, _, ok, _ := db.Wait(ep, now); ok {
		t.Error("a passed wait is forgotten, not kept")
	}
	db.RememberWait(ep, c, now)
	if err := db.ForgetWait(ep); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, _ := db.Wait(ep, now); ok {
		t.Error("held after ForgetWait")
	}
}

// Parleys taking retries from one budget at once never take more than it holds.
func TestTakeRetryIsSharedExactly(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	budget := retry.DefaultRetryBudget()
	now := time.Now()
	for range 20 {
		if err := db.RecordSend("http://x/v1", now, false, budget.Window); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	taken := 0
	for range 8 {
		h := openAgain(t, db)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				ok, _, err := h.TakeRetry("http://x/v1", now, budget.Window, budget.Next)
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					mu.Lock()
					taken++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if taken != 12 {
		t.Errorf("%d retries taken; the budget for 20 first attempts is 12", taken)
	}
	if ok, at, _ := db.TakeRetry("http://other/v1", now, budget.Window, budget.Next); !ok || !at.Equal(now) {
		t.Error("another endpoint's budget was spent")
	}
}
