package retry

import (
	"math"
	"strconv"
	"testing"
	"time"

	"parley/internal/chat"

	"pgregory.net/rapid"
)

// fakeClock is a Clock whose time moves only when something waits on it.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.now = c.now.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

func constRand(r float64) func() float64 { return func() float64 { return r } }

func TestBackoffBounds(t *testing.T) {
	p := DefaultPolicy()
	if p.MaxAttempts != 3 || p.Base != time.Second || p.Cap != 30*time.Second {
		t.Fatalf("DefaultPolicy = %+v", p)
	}
	ceilings := []time.Duration{1, 2, 4, 8, 16, 30, 30, 30}
	for i, ceiling := range ceilings {
		n := i + 1
		ceiling *= time.Second
		p.Rand = constRand(0)
		if got := p.Backoff(n); got != 0 {
			t.Errorf("Backoff(%d) with rand 0 = %v, want 0", n, got)
		}
		p.Rand = constRand(math.Nextafter(1, 0))
		if got := p.Backoff(n); got > ceiling || got < ceiling-time.Microsecond {
			t.Errorf("Backoff(%d) with rand just below 1 = %v, want just below %v", n, got, ceiling)
		}
		p.Rand = constRand(0.5)
		if got := p.Backoff(n); got != ceiling/2 {
			t.Errorf("Backoff(%d) with rand 0.5 = %v, want %v", n, got, ceiling/2)
		}
	}
	p.Rand = constRand(math.Nextafter(1, 0))
	for _, n := range []int{64, 1000, math.MaxInt} {
		if got := p.Backoff(n); got > p.Cap || got < p.Cap-time.Microsecond {
			t.Errorf("Backoff(%d) = %v, want just below the cap %v", n, got, p.Cap)
		}
	}
	p.Rand = nil // the real random source stays in bounds too
	for range 1000 {
		if got := p.Backoff(2); got < 0 || got > 2*time.Second {
			t.Fatalf("Backoff(2) = %v, outside [0, 2s]", got)
		}
	}
}

func TestDecide(t *testing.T) {
	clock := &fakeClock{now: testNow}
	p := DefaultPolicy()
	p.Rand = constRand(0.5)
	overloaded := chat.Classification{Retryable: true, Class: chat.Overloaded}
	advised := func(d time.Duration) chat.Classification {
		c := chat.Classification{Retryable: true, Class: chat.RateLimited}
		c.RetryAfterUntil = clock.Now().Add(d)
		return c
	}
	for _, tc := range []struct {
		name            string
		c               chat.Classification
		attempt         int
		afterFirstDelta bool
		want            Decision
	}{
		{"first failure waits half the first ceiling", overloaded, 1, false, Decision{Retry: true, Wait: 500 * time.Millisecond}},
		{"second failure doubles the ceiling", overloaded, 2, false, Decision{Retry: true, Wait: time.Second}},
		{"never past three attempts", overloaded, 3, false, Decision{}},
		{"never after the first delta", overloaded, 1, true, Decision{}},
		{"never a non-retryable class", chat.Classification{Class: chat.QuotaExhausted}, 1, false, Decision{}},
		{"x-should-retry false keeps the class but stops", chat.Classification{Class: chat.Overloaded}, 1, false, Decision{}},
		{"nearer advice is waited out", advised(10 * time.Second), 1, false, Decision{Retry: true, Wait: 10 * time.Second}},
		{"advice shorter than the backoff", advised(100 * time.Millisecond), 2, false, Decision{Retry: true, Wait: time.Second}},
		{"advice exactly at the cap", advised(30 * time.Second), 1, false, Decision{Retry: true, Wait: 30 * time.Second}},
		{"advice beyond the cap hands off", advised(37 * time.Second), 1, false, Decision{HandOff: true}},
		{"advice in the past is ignored", advised(-time.Minute), 1, false, Decision{Retry: true, Wait: 500 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.Decide(tc.c, tc.attempt, tc.afterFirstDelta, clock.Now()); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}

	// On a clock that moves, a retry never leaves before the advised time.
	c := advised(20 * time.Second)
	d := p.Decide(c, 1, false, clock.Now())
	<-clock.After(d.Wait)
	if !d.Retry || clock.Now().Before(c.RetryAfterUntil) {
		t.Errorf("after waiting %v the clock is at %v, before the advice %v", d.Wait, clock.Now(), c.RetryAfterUntil)
	}
}

// TestTier1Properties simulates Tier 1 over arbitrary failures: it never makes more than
// MaxAttempts attempts, never retries after content was shown or a non-retryable class, never
// waits beyond the cap, and never sends before the server's advised time.
func TestTier1Properties(t *testing.T) {
	classes := []chat.Class{chat.RateLimited, chat.Overloaded, chat.ServerError, chat.Network, chat.Timeout, chat.QuotaExhausted, chat.AuthFailed,
		chat.ContextOverflow, chat.ModelNotFound, chat.BadRequest, chat.ContentFilter, chat.EmptyResponse, chat.Cancelled}
	rapid.Check(t, func(t *rapid.T) {
		p := DefaultPolicy()
		p.Rand = func() float64 { return rapid.Float64Range(0, math.Nextafter(1, 0)).Draw(t, "rand") }
		clock := &fakeClock{now: testNow}
		attempts := 1
		for {
			class := rapid.SampledFrom(classes).Draw(t, "class")
			c := chat.Classification{Class: class, Retryable: class.Retryable() && !rapid.Bool().Draw(t, "should-retry-false")}
			if rapid.Bool().Draw(t, "advised") {
				c.RetryAfterUntil = clock.Now().Add(time.Duration(rapid.Int64Range(int64(-time.Minute), int64(time.Hour)).Draw(t, "advice")))
			}
			afterDelta := rapid.Bool().Draw(t, "after-first-delta")
			d := p.Decide(c, attempts, afterDelta, clock.Now())
			if d.Wait < 0 || d.Wait > p.Cap {
				t.Fatalf("wait %v outside [0, %v]", d.Wait, p.Cap)
			}
			if !d.Retry {
				if d.Wait != 0 {
					t.Fatalf("no retry but a wait of %v", d.Wait)
				}
				if d.HandOff && !c.RetryAfterUntil.After(clock.Now().Add(p.Cap)) {
					t.Fatalf("handed off advice %v that is within the cap", c.RetryAfterUntil.Sub(clock.Now()))
				}
				break
			}
			if d.HandOff || afterDelta || !c.Retryable {
				t.Fatalf("retried %+v (after first delta %v): %+v", c, afterDelta, d)
			}
			<-clock.After(d.Wait)
			if clock.Now().Before(c.RetryAfterUntil) {
				t.Fatalf("retry sent %v before the advised time", c.RetryAfterUntil.Sub(clock.Now()))
			}
			attempts++
		}
		if attempts > p.MaxAttempts {
			t.Fatalf("%d attempts, more than %d", attempts, p.MaxAttempts)
		}
	})
}

// TestClassifyProperties checks the invariants Classify adds on top of the class, for any
// status and advice: retryable only for a retryable class, never with x-should-retry: false or
// advice beyond 12 hours, and the advice always kept.
func TestClassifyProperties(t *testing.T) {
	bodies := []string{``, `{"error":{"message":"overloaded"}}`, `{"error":{"code":"insufficient_quota"}}`,
		`{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}`, `{"error":"model not found"}`,
		`[{"error":{"code":429,"status":"RESOURCE_EXHAUSTED"}}]`, `upstream connect error`}
	rapid.Check(t, func(t *rapid.T) {
		h := header()
		if rapid.Bool().Draw(t, "has-should-retry") {
			h.Set("x-should-retry", rapid.SampledFrom([]string{"true", "false"}).Draw(t, "should-retry"))
		}
		seconds := rapid.Int64Range(1, 48*3600).Draw(t, "retry-after")
		h.Set("Retry-After", strconv.FormatInt(seconds, 10))
		advice := time.Duration(seconds) * time.Second
		f := Failure{
			Phase:  Status,
			Status: rapid.IntRange(400, 599).Draw(t, "status"),
			Header: h,
			Body:   []byte(rapid.SampledFrom(bodies).Draw(t, "body")),
			Now:    testNow,
		}
		c := Classify(f)
		if c.Retryable && (!c.Class.Retryable() || h.Get("x-should-retry") == "false" || advice > 12*time.Hour) {
			t.Fatalf("%d %s with advice %v: retryable %s", f.Status, f.Body, advice, c.Class)
		}
		if !c.RetryAfterUntil.Equal(testNow.Add(advice)) {
			t.Fatalf("RetryAfterUntil %v, want now+%v", c.RetryAfterUntil, advice)
		}
		if c.Label != chat.Label(c.Class) {
			t.Fatalf("label %q for %s", c.Label, c.Class)
		}
	})
}

func TestTier2Schedule(t *testing.T) {
	want := []time.Duration{2, 4, 8, 16, 32, 64, 128, 256, 300, 300}
	for i, w := range want {
		if got := Tier2Delay(i + 1); got != w*time.Second {
			t.Errorf("Tier2Delay(%d) = %s, want %s", i+1, got, w*time.Second)
		}
	}
	failed := time.Date(2026, 3, 1, 14, 2, 0, 0, time.UTC)
	advised := chat.Classification{RetryAfterUntil: failed.Add(50 * time.Minute)}
	if got := Tier2Due(1, advised, failed); !got.Equal(advised.RetryAfterUntil) {
		t.Errorf("due %s, want the provider's time", got)
	}
	if got := Tier2Due(3, chat.Classification{}, failed); !got.Equal(failed.Add(8 * time.Second)) {
		t.Errorf("due %s", got)
	}
}
