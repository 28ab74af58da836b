package cli

import (
	"math"
	"strings"
	"testing"
	"time"

	"parley/internal/chat"
	"parley/internal/chat/chattest"
	"parley/internal/demo"
)

// The server's numbers win: four real shapes of a limit that states when it frees, worded as
// quotas and windows, are each a scheduled wait until the stated time, through the live client
// and through parley classify alike; and a second parley meanwhile is held without sending.
func TestAStatedResetIsAScheduledWait(t *testing.T) {
	t.Parallel()
	noon := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	gemini := `[{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.",` +
		`"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2000s"}]}}]`
	for _, c := range []struct {
		name  string
		fault demo.Fault
		until time.Time
	}{
		{"quota words and Retry-After", demo.Fault{Status: 429, Header: map[string]string{"Retry-After": "3000", "Content-Type": "application/json"},
			Body: `{"error":{"message":"quota exceeded","type":"rate_limit"}}`}, noon.Add(50 * time.Minute)},
		{"tokens per day, try again in", demo.Fault{Status: 429, Header: map[string]string{"Content-Type": "application/json"},
			Body: `{"error":{"message":"Rate limit reached for model llama-3.3-70b-versatile on tokens per day (TPD): Limit 100000, Used 99000, Requested 2000. Please try again in 42m12s.","type":"tokens","code":"rate_limit_exceeded"}}`},
			noon.Add(42*time.Minute + 12*time.Second)},
		{"gemini's quota with a retryDelay", demo.Fault{Status: 429, Header: map[string]string{"Content-Type": "application/json"}, Body: gemini},
			noon.Add(2000 * time.Second)},
		{"a usage limit that resets at 3pm (UTC)", demo.Fault{Status: 429, Header: map[string]string{"Content-Type": "application/json"},
			Body: `{"type":"error","error":{"type":"rate_limit_error","message":"You have reached your usage limit. Your limit will reset at 3pm (UTC)."}}`},
			time.Date(2026, 3, 1, 15, 0, 0, 0, time.UTC)},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			u, srv := newServedUser(t)
			srv.Push(c.fault)
			u.clock = chattest.NewInstant(noon)
			r := u.run("-p", "hello", "--base-url", srv.URL(), "--model", "m", "--json")
			out := decode[printJSON](t, r.stdout)
			if r.code != 3 || out.Retry == nil || !out.Retry.Retryable || out.Retry.RetryClass != "rate_limited" || out.Retry.RetryAfterUntil == nil {
				t.Fatalf("exit %d, %+v; stderr %q", r.code, out.Retry, r.stderr)
			}
			if got, _ := time.Parse(time.RFC3339, *out.Retry.RetryAfterUntil); !got.Equal(c.until) {
				t.Errorf("retry_after_until %s, want %s", *out.Retry.RetryAfterUntil, c.until.Format(time.RFC3339))
			}
			raw := "HTTP/1.1 429 Too Many Requests\n"
			for k, v := range c.fault.Header {
				raw += k + ": " + v + "\n"
			}
			explained := decode[struct {
				Retryable       bool    `json:"retryable"`
				RetryClass      string  `json:"retry_class"`
				RetryAfterUntil *string `json:"retry_after_until"`
			}](t, u.pipe(raw+"\n"+c.fault.Body, "classify", "--json").stdout)
			if explained.RetryClass != out.Retry.RetryClass || explained.RetryAfterUntil == nil || *explained.RetryAfterUntil != *out.Retry.RetryAfterUntil {
				t.Errorf("parley classify says %+v", explained)
			}
			if held := u.run("-p", "again", "--base-url", srv.URL(), "--model", "m"); held.code != 3 || srv.Requests() != 1 {
				t.Errorf("a second parley: exit %d, %d requests; it must be held without sending", held.code, srv.Requests())
			}
		})
	}
}

// Numbers out of range are facts: a 429 whose wait overflows any duration is a hard quota said
// with its time ("not before" the farthest time parley holds), sent once, exit 1, and a later
// run is held without sending. A day's wait keeps its own time.
func TestAResetOutOfRangeIsAHardQuota(t *testing.T) {
	t.Parallel()
	noon := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	farthest := time.Unix(0, math.MaxInt64)
	tooMany := `{"error":{"message":"Too Many Requests","type":"rate_limit_error"}}`
	for _, c := range []struct {
		name   string
		header map[string]string
		body   string
		until  time.Time
	}{
		{"Retry-After: 999999999999999999999", map[string]string{"Retry-After": "999999999999999999999"}, tooMany, farthest},
		{"Retry-After: 9223372036854775807", map[string]string{"Retry-After": "9223372036854775807"}, tooMany, farthest},
		{"retry-after-ms: 1e20", map[string]string{"retry-after-ms": "1e20"}, tooMany, farthest},
		{"try again in 99999999999999h", nil,
			`{"error":{"message":"Rate limit reached for requests. Please try again in 99999999999999h.","type":"requests","code":"rate_limit_exceeded"}}`,
			farthest},
		{"Retry-After: 86400", map[string]string{"Retry-After": "86400"}, tooMany, noon.Add(24 * time.Hour)},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			u, srv := newServedUser(t)
			header := map[string]string{"Content-Type": "application/json"}
			for k, v := range c.header {
				header[k] = v
			}
			srv.Push(demo.Fault{Status: 429, Header: header, Body: c.body})
			u.clock = chattest.NewInstant(noon)
			r := u.run(append([]string{"-p", "hello", "--json"}, endpointFlags(srv)...)...)
			out := decode[printJSON](t, r.stdout)
			if r.code != 1 || srv.Requests() != 1 || out.Retry == nil || out.Retry.Retryable ||
				out.Retry.RetryClass != "quota_exhausted" || out.Retry.RetryAfterUntil == nil {
				t.Fatalf("exit %d after %d requests, %+v; want exit 1 after one, a hard quota with its time (stderr %q)",
					r.code, srv.Requests(), out.Retry, r.stderr)
			}
			if got, _ := time.Parse(time.RFC3339Nano, *out.Retry.RetryAfterUntil); !got.Equal(c.until) {
				t.Errorf("retry_after_until %s, want %s", *out.Retry.RetryAfterUntil, c.until.Format(time.RFC3339Nano))
			}
			if want := "not before " + chat.FormatClock(c.until, noon); !strings.Contains(r.stderr, want) {
				t.Errorf("stderr %q does not say %q", r.stderr, want)
			}
			if again := u.run(append([]string{"-p", "again"}, endpointFlags(srv)...)...); again.code == 0 || srv.Requests() != 1 {
				t.Errorf("a later run: exit %d, %d requests; it must be held without sending", again.code, srv.Requests())
			}
		})
	}
}
