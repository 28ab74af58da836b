package cli

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"parley/internal/demo"
)

// --timeout bounds a whole print-mode run: a server that hangs mid-reply, and --wait's waits.
// The limit is real time, seconds, against waits of minutes: each test would last as long as
// the hang without it.

// timedOutJSON is the --json object of a run --timeout stopped.
// sessionNamed matches print mode's last line ending with the session it stored in, as
// --session takes it.
var sessionNamed = regexp.MustCompile(`\(retryable, session [0-9a-f]{8}\)\n$`)

type timedOutJSON struct {
	printJSON
	Error string `json:"error"`
}

// The limit is three seconds: the three words must arrive before it, after the database opens,
// on a machine as loaded as a race-detector run beside other work makes it.
func TestTimeoutStopsAHangKeepingTheText(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	srv.Push(demo.Fault{StallAfter: 3}) // three words, then nothing until the client goes
	start := time.Now()
	r := u.run("-p", "hello", "--base-url", srv.URL(), "--model", "m", "--timeout", "3s", "--json")
	took := time.Since(start)
	res := decode[timedOutJSON](t, r.stdout)
	if r.code != 3 || res.Status != "failed" || res.Retry == nil || !res.Retry.Retryable || res.Retry.RetryClass != "timeout" ||
		res.Error != "Timed out — stopped after --timeout 3s" || srv.Requests() != 1 {
		t.Fatalf("exit %d after %d requests: %+v %+v", r.code, srv.Requests(), res, res.Retry)
	}
	if !strings.HasSuffix(r.stderr, "parley: Timed out — stopped after --timeout 3s (retryable, session "+res.SessionID+")\n") {
		t.Errorf("stderr %q", r.stderr)
	}
	if took < 3*time.Second || took > 20*time.Second {
		t.Errorf("took %s with --timeout 3s", took)
	}
	if res.Text == "" || len(strings.Fields(res.Text)) > 3 {
		t.Errorf("kept %q; want the three words", res.Text)
	}
	e := decode[exportJSON](t, u.run("export", res.SessionID, "--json").stdout)
	if reply := e.Messages[1]; reply.Content != res.Text || reply.Status != "cancelled" {
		t.Errorf("stored %s %q; want cancelled with %q", reply.Status, reply.Content, res.Text)
	}
}

// --wait's wait counts in the limit: a provider's two minutes are not waited for past it.
func TestTimeoutBoundsWait(t *testing.T) {
	t.Parallel()
	u, srv := newServedUser(t)
	srv.Push(demo.RateLimited(2 * time.Minute))
	start := time.Now()
	r := u.run("-p", "hello", "--base-url", srv.URL(), "--model", "m", "--wait=10m", "--timeout", "1s")
	took := time.Since(start)
	if r.code != 3 || srv.Requests() != 1 || !sessionNamed.MatchString(r.stderr) ||
		!strings.Contains(r.stderr, "parley: Timed out — stopped after --timeout 1s (retryable, session ") {
		t.Fatalf("exit %d after %d requests, stderr %q", r.code, srv.Requests(), r.stderr)
	}
	if took > 10*time.Second {
		t.Errorf("took %s with --timeout 1s", took)
	}
	if r := u.run("-p", "hello", "--demo", "--timeout", "soon"); r.code != 2 ||
		r.stderr != "parley: invalid value \"soon\" for --timeout: want a time such as 30s or 5m (see parley -h)\n" {
		t.Errorf("--timeout soon: exit %d, stderr %q", r.code, r.stderr)
	}
}

// Asking the endpoint for its model counts in the limit too.
func TestTimeoutBoundsAskingForTheModel(t *testing.T) {
	t.Parallel()
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	t.Cleanup(hung.Close)
	start := time.Now()
	r := newUser(t).run("-p", "hello", "--base-url", hung.URL+"/v1", "--timeout", "1s")
	if r.code != 3 || r.stderr != "parley: Timed out — stopped after --timeout 1s (retryable)\n" || time.Since(start) > 10*time.Second {
		t.Fatalf("exit %d after %s, stderr %q", r.code, time.Since(start), r.stderr)
	}
}
