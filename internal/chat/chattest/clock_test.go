package chattest

import (
	"testing"
	"time"
)

func TestWaitsFireOnlyWhenDue(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := New(start)
	short, long := c.After(time.Second), c.After(3*time.Second)
	if got := <-c.Asked(); got != time.Second {
		t.Fatalf("asked %v first, want 1s", got)
	}
	if !c.Waiting(3*time.Second) || c.Waiting(2*time.Second) {
		t.Fatal("Waiting does not report the pending waits")
	}
	c.Advance(999 * time.Millisecond)
	select {
	case <-short:
		t.Fatal("a 1s wait fired after 999ms")
	default:
	}
	c.Advance(time.Millisecond)
	if at := <-short; !at.Equal(start.Add(time.Second)) {
		t.Fatalf("fired at %v", at)
	}
	select {
	case <-long:
		t.Fatal("a 3s wait fired after 1s")
	default:
	}
	c.Advance(2 * time.Second)
	<-long
	if c.Waiting(3 * time.Second) {
		t.Fatal("a fired wait is still pending")
	}
	select {
	case <-c.After(0):
	default:
		t.Fatal("a zero wait did not fire at once")
	}
}

func TestInstantWaitsPassAtOnceAndMoveTheClock(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := NewInstant(start)
	if at := <-c.After(2 * time.Second); !at.Equal(start.Add(2 * time.Second)) {
		t.Fatalf("fired at %v", at)
	}
	<-c.After(time.Second)
	if !c.Now().Equal(start.Add(3*time.Second)) || len(c.Waits()) != 2 || c.Waits()[1] != time.Second {
		t.Fatalf("now %v, waits %v", c.Now(), c.Waits())
	}
}
