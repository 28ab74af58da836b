package history

import (
	"sync"
	"testing"
	"time"

	"parley/agent/chat"
	"parley/retry"
)

func TestEndpointMemory(t *testing.T) {
	db := openTemp(t)
	other := openAgain(t, db)
	ep := chat.EndpointKey{BaseURL: "https://api.example.com/v1", Model: "gpt-4o", KeyEnv: "OPENAI_API_KEY"}
	now := time.Date(2026, 3, 1, 14, 2, 0, 0, time.UTC)
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
