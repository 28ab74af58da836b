package chattest

import (
	"bytes"
	"sync"
	"testing"
	"time"
)

// Buffer is a bytes.Buffer safe to read while another goroutine or a process writes it: a
// run's stdout or stderr read while it is still going.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// WaitFor polls until cond holds, failing the test after 30 seconds: for what a real process
// or server does in its own time, where no manual clock reaches.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
