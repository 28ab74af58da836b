package e2e

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// What parley reads is bounded: a server's flood of keep-alive comments does not grow its
// memory, and a pipe given as a file is refused instead of waited on.

// A server that sends only keep-alive comments, as fast as it can, 512 MiB of them before its
// first word: parley keeps none of them, and its memory stays under 100 MB, a fifth of what
// it read.
func TestStorageKeepAliveFlood(t *testing.T) {
	t.Parallel()
	const flood = 512 << 20
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		block := bytes.Repeat([]byte(": keep-alive\n\n"), 4096)
		for sent.Load() < flood {
			n, err := w.Write(block)
			sent.Add(int64(n))
			if err != nil || rc.Flush() != nil {
				return
			}
		}
		for _, ev := range []string{
			`{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"still here"}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
			"[DONE]",
		} {
			w.Write([]byte("data: " + ev + "\n\n"))
		}
	}))
	defer srv.Close()
	u := newUser(t)
	cmd := u.command("-p", "hello", "--base-url", srv.URL+"/v1", "--model", "m")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// Rusage's Maxrss will not do: Go starts a child with vfork, and at exec the kernel counts
	// the test process's own peak (other tests' 4 MB replies) into the child's. VmHWM is the
	// child's own high-water mark, polled while it runs.
	var peak int64 // KiB
	var err error
	for running := true; running; {
		select {
		case err = <-exited:
			running = false
		case <-time.After(20 * time.Millisecond):
			peak = max(peak, highWaterMark(t, cmd.Process.Pid))
		}
	}
	took := time.Since(start)
	t.Logf("%d MB of keep-alives in %s", sent.Load()>>20, took.Round(time.Millisecond))
	if err != nil || stdout.String() != "still here\n" {
		t.Fatalf("%v, printed %q; want the reply after the flood; stderr %q", err, stdout.String(), stderr.String())
	}
	t.Logf("peak RSS %d KiB (rusage's Maxrss, the test process's counted in: %d KiB)",
		peak, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
	if peak == 0 || peak*1024 >= 100_000_000 {
		t.Errorf("peak RSS %d KiB through the flood, want under 100 MB", peak)
	}
}

// highWaterMark returns the peak resident memory of process pid so far, in KiB (VmHWM); 0 once
// it has exited.
func highWaterMark(t *testing.T, pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM of %q: %v", line, err)
			}
			return kib
		}
	}
	return 0
}

// -f on a pipe with no writer, or on a device, is refused at once: opened, it would wait for
// a writer or read without end. 10 s is far past what a start takes on a loaded machine, and
// far short of a hang.
func TestStorageFIFORefused(t *testing.T) {
	t.Parallel()
	u := newUser(t)
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, "/dev/zero"} {
		start := time.Now()
		r := u.run("-p", "summarise this", "-f", path, "--base-url", "http://127.0.0.1:9/v1", "--model", "m")
		took := time.Since(start)
		t.Logf("%s: exit %d in %s: %s", path, r.code, took.Round(time.Millisecond), strings.TrimSpace(r.stderr))
		if r.code != 2 || !strings.Contains(r.stderr, "it is a pipe or a device") {
			t.Errorf("%s: exit %d, %q; want it refused as a pipe or a device, exit 2", path, r.code, r.stderr)
		}
		if took > 10*time.Second {
			t.Errorf("%s: refused after %s, want within 10 s", path, took)
		}
	}
}
