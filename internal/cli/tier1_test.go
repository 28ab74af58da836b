package cli

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"parley/internal/demo"
	"parley/internal/demo/demotest"
)

// The scenarios of Tier 1, against a request-counting fault server. Tier 1 waits on each
// user's instant clock, so a wait the server advised shows as time the clock moved on.
func TestTier1Scenarios(t *testing.T) {
	t.Parallel()
	scenarios := []struct {
		name   string
		faults []demo.Fault
		// dateAdvice sends, before the faults, a 503 with a Retry-After HTTP date 3 s ahead
		// (whole seconds: the retry must come no sooner than that second).
		dateAdvice bool
		code       int
		// requests is how many requests the server gets.
		requests int
		// minGap is the least time waited between the first and the last request.
		minGap time.Duration
		class  string
		// untilSoon is how far ahead retry_after_until is expected, about.
		untilSoon time.Duration
	}{
		{name: "503,503,ok", faults: []demo.Fault{demo.Overloaded(), demo.Overloaded()}, code: 0, requests: 3},
		{name: "503 forever", faults: []demo.Fault{demo.Overloaded(), demo.Overloaded(), demo.Overloaded(), demo.Overloaded()}, code: 3, requests: 3, class: "overloaded"},
		{name: "429 Retry-After 2 then ok", faults: []demo.Fault{{Status: 429, Header: map[string]string{"Retry-After": "2"}, Body: `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`}}, code: 0, requests: 2, minGap: 2 * time.Second},
		{name: "retry-after-ms", faults: []demo.Fault{{Status: 429, Header: map[string]string{"retry-after-ms": "1500"}, Body: `{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}`}}, code: 0, requests: 2, minGap: 1500 * time.Millisecond},
		{name: "HTTP-date Retry-After", dateAdvice: true, code: 0, requests: 2},
		{name: "429 Retry-After 3000", faults: []demo.Fault{{Status: 429, Header: map[string]string{"Retry-After": "3000"}, Body: `{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}`}}, code: 3, requests: 1, class: "rate_limited", untilSoon: 3000 * time.Second},
		{name: "reset 45m0s", faults: []demo.Fault{{Status: 429, Header: map[string]string{"x-ratelimit-reset-requests": "45m0s", "x-ratelimit-remaining-requests": "0"}, Body: `{"error":{"message":"Rate limit reached for requests","code":"rate_limit_exceeded"}}`}}, code: 3, requests: 1, class: "rate_limited", untilSoon: 45 * time.Minute},
		{name: "insufficient_quota", faults: []demo.Fault{demo.Quota(), demo.Quota()}, code: 1, requests: 1, class: "quota_exhausted"},
		{name: "401", faults: []demo.Fault{demo.BadKey(), demo.BadKey()}, code: 1, requests: 1, class: "auth_failed"},
		{name: "error event then ok", faults: []demo.Fault{demo.ErrorEvent()}, code: 0, requests: 2},
		{name: "reset before headers then ok", faults: []demo.Fault{{Reset: true}}, code: 0, requests: 2},
		{name: "cut after 4 deltas", faults: []demo.Fault{{CutAfter: 4}}, code: 3, requests: 1, class: "network"},
		{name: "x-should-retry false", faults: []demo.Fault{{Status: 503, Header: map[string]string{"x-should-retry": "false"}, Body: `{"error":{"message":"overloaded"}}`}, demo.Overloaded()}, code: 1, requests: 1, class: "overloaded"},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			u, srv := newServedUser(t)
			clock := u.instantClock()
			start := clock.Now()
			date := start.Add(3 * time.Second).Truncate(time.Second)
			if sc.dateAdvice {
				srv.Push(demo.Fault{Status: 503, Header: map[string]string{"Retry-After": date.UTC().Format(http.TimeFormat)}, Body: `{"error":{"message":"overloaded"}}`})
			}
			srv.Push(sc.faults...)
			r := u.run("-p", "hello", "--base-url", srv.URL(), "--model", "m", "--json")
			out := decode[printJSON](t, r.stdout)
			if r.code != sc.code || srv.Requests() != sc.requests {
				t.Fatalf("exit %d after %d requests, want exit %d after %d; %+v %s", r.code, srv.Requests(), sc.code, sc.requests, out, r.stderr)
			}
			if sc.class != "" && (out.Retry == nil || out.Retry.RetryClass != sc.class) {
				t.Fatalf("classified %+v, want %s", out.Retry, sc.class)
			}
			// The clock moves only by the waits, and none follows the last request.
			waited := clock.Now().Sub(start)
			if waited < sc.minGap {
				t.Fatalf("retried after %v, sooner than the advised %v", waited, sc.minGap)
			}
			if sc.dateAdvice && start.Add(waited).Before(date) {
				t.Fatalf("retried at %v, before the advised %v", start.Add(waited), date)
			}
			if sc.untilSoon > 0 {
				until, err := time.Parse(time.RFC3339, *out.Retry.RetryAfterUntil)
				if err != nil {
					t.Fatal(err)
				}
				if ahead := until.Sub(start); ahead < sc.untilSoon-5*time.Second || ahead > sc.untilSoon+5*time.Second {
					t.Fatalf("retry_after_until is %v ahead, want about %v", ahead, sc.untilSoon)
				}
			}
			if sc.code == 0 && out.Attempts != sc.requests {
				t.Fatalf("attempts %d, want %d", out.Attempts, sc.requests)
			}
		})
	}
}

func TestPrintModeErrorsNameTheFix(t *testing.T) {
	t.Parallel()
	srv := demotest.Start(t, demo.Options{})
	base := strings.TrimSuffix(srv.URL(), "/v1")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	for _, c := range []struct {
		name, url string
		fault     bool // the server answers 401 invalid_api_key
		code      int
		want      string
	}{
		{"the chat path in the base URL", base + "/chat/completions", false, 1,
			"at " + base + "/chat/completions/chat/completions: the base URL should end in /v1: use " + base + "/v1"},
		{"no /v1", base, false, 1, "at " + base + "/chat/completions: the base URL should end in /v1: use " + base + "/v1"},
		{"nothing listening", "http://" + closed + "/v1", false, 1,
			"nothing is listening on " + closed + " (connection refused): is the server running? Start it, then try again"},
		{"no key sent", srv.URL(), true, 1, "no API key was sent; set OPENAI_API_KEY to the server's key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.fault {
				srv.Push(demo.BadKey())
			}
			u := newUser(t)
			u.instantClock() // Tier 1 tries a refused connection again, at once
			r := u.run("-p", "hello", "--base-url", c.url, "--model", "m")
			if r.code != c.code || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit %d and %q", r.code, r.stderr, c.code, c.want)
			}
			t.Logf("%s", strings.TrimSpace(r.stderr[strings.LastIndex(strings.TrimSpace(r.stderr), "\n")+1:]))
		})
	}
}

// A gateway's own retries are shown and counted: behind Portkey's retry config one attempt of
// parley's was four upstream requests, and print mode says so, in words and in --json.
func TestAGatewaysRetriesAreShown(t *testing.T) {
	t.Parallel()
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("x-portkey-retry-attempt-count", "3")
		w.Header().Set("x-portkey-provider", "anthropic")
		w.WriteHeader(529)
		fmt.Fprint(w, `{"error":{"message":"anthropic error: Overloaded","type":"overloaded_error","param":null,"code":null},"provider":"anthropic"}`)
	}))
	t.Cleanup(srv.Close)
	u := newUser(t)
	r := u.run("-p", "hi", "--base-url", srv.URL+"/v1", "--model", "m", "--json")
	var out struct {
		printJSON
		GatewayAttempts int `json:"gateway_attempts"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("%v: %q", err, r.stdout)
	}
	if r.code != 3 || requests.Load() != 1 || out.Attempts != 1 || out.GatewayAttempts != 4 {
		t.Errorf("exit %d, %d requests, attempts %d, gateway_attempts %d; want 3, 1, 1, 4", r.code, requests.Load(), out.Attempts, out.GatewayAttempts)
	}
	if out.Error == nil || !strings.Contains(*out.Error, "Provider overloaded — gateway retried 3× · anthropic error: Overloaded") {
		t.Errorf("the error says %v", out.Error)
	}
}
