package retry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"

	"parley/internal/chat"
)

// statusCase is an answer with a status, and the class Classify must give it: whether it is
// retried, and until when the provider asked to wait.
type statusCase struct {
	name      string
	status    int
	header    http.Header
	body      string
	class     chat.Class
	retryable bool
	until     time.Duration // RetryAfterUntil from testNow; 0 means none
}

// classify classifies tc's answer at testNow, and returns the RetryAfterUntil tc wants of it.
func (tc statusCase) classify() (c chat.Classification, until time.Time) {
	if tc.until != 0 {
		until = testNow.Add(tc.until)
	}
	return Classify(Failure{Phase: Status, Status: tc.status, Header: tc.header, Body: []byte(tc.body), Now: testNow}), until
}

func TestClassifyResponses(t *testing.T) {
	for _, tc := range []statusCase{
		{"retry-after 3000 on 429", 429, header("Retry-After", "3000"),
			`{"error":{"message":"Too many requests","code":"rate_limit_exceeded"}}`, chat.RateLimited, true, 3000 * time.Second},
		{"retry-after-ms on 429", 429, header("retry-after-ms", "750"), ``, chat.RateLimited, true, 750 * time.Millisecond},
		{"retry-after date on 503", 503, header("Retry-After", "Sun, 01 Mar 2026 12:02:00 GMT"),
			`Service Unavailable`, chat.Overloaded, true, 2 * time.Minute},
		{"reset 45m0s", 429, header("x-ratelimit-reset-requests", "45m0s", "x-ratelimit-remaining-requests", "0"),
			`{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`,
			chat.RateLimited, true, 45 * time.Minute},
		{"13h advice is a hard quota", 429, header("x-ratelimit-reset-requests", "13h0m0s", "x-ratelimit-remaining-requests", "0"),
			`{"error":{"message":"Rate limit reached for requests per day (RPD)","code":"rate_limit_exceeded"}}`,
			chat.QuotaExhausted, false, 13 * time.Hour},
		{"x-should-retry false on 503", 503, header("x-should-retry", "false"),
			`{"error":{"message":"overloaded"}}`, chat.Overloaded, false, 0},
		{"x-should-retry true cannot rescue 401", 401, header("x-should-retry", "true"),
			`{"error":{"message":"bad key"}}`, chat.AuthFailed, false, 0},
		{"gemini API_KEY_INVALID on 400", 400, nil,
			`[{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"reason":"API_KEY_INVALID"}]}}]`,
			chat.AuthFailed, false, 0},
		{"anthropic spend limit keeps the regain time", 400, nil,
			`{"type":"error","error":{"type":"invalid_request_error","message":"You have reached your specified API usage limits. You will regain access on 2026-04-01 at 00:00 UTC."}}`,
			chat.SpendLimitExceeded, false, time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC).Sub(testNow)},
		{"429 request too large", 429, nil,
			`{"error":{"message":"Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Requested 36536. The input or output tokens must be reduced in order to run successfully.","type":"tokens","code":"rate_limit_exceeded"}}`,
			chat.BadRequest, false, 0},
		{"429 requested above the per-minute limit", 429, nil,
			`{"error":{"message":"Rate limit reached on tokens per minute (TPM): Limit 6000, Requested 7000, please reduce your message size and try again."}}`,
			chat.BadRequest, false, 0},
		{"deepseek context overflow", 400, nil,
			`{"error":{"message":"This model's maximum context length is 65536 tokens. However, you requested 70000 tokens (70000 in the messages, 0 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`,
			chat.ContextOverflow, false, 0},
		{"azure content_policy", 400, nil, `{"error":{"code":"content_policy_violation","message":"Your request was rejected."}}`,
			chat.ContentFilter, false, 0},
		{"413 too large", 413, nil, `Request Entity Too Large`, chat.BadRequest, false, 0},
		{"422 unprocessable", 422, nil, `{"detail":[{"msg":"field required"}]}`, chat.BadRequest, false, 0},
		{"404 without a model is a wrong path", 404, nil, `404 page not found`, chat.BadRequest, false, 0},
		{"gemini model not found", 404, nil,
			`{"error":{"code":404,"message":"models/gemini-9 is not found for API version v1beta","status":"NOT_FOUND"}}`,
			chat.ModelNotFound, false, 0},
		{"403 forbidden", 403, nil, `{"error":{"message":"Project does not have access"}}`, chat.AuthFailed, false, 0},
		{"408", 408, nil, ``, chat.Timeout, true, 0},
		{"409", 409, nil, `{"error":{"message":"conflict"}}`, chat.ServerError, true, 0},
		{"502 proxy page", 502, nil, `<html><body>502 Bad Gateway</body></html>`, chat.ServerError, true, 0},
		{"504", 504, nil, ``, chat.ServerError, true, 0},
		{"501 cannot succeed", 501, nil, ``, chat.BadRequest, false, 0},
		{"400 text saying overloaded stays a client fault", 400, nil, `{"error":{"message":"overloaded"}}`, chat.BadRequest, false, 0},
		{"ollama text error", 500, nil, `{"error":"llama runner process has terminated"}`, chat.ServerError, true, 0},
		{"anthropic rate_limit_error", 429, nil, `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`,
			chat.RateLimited, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, until := tc.classify()
			if c.Class != tc.class || c.Retryable != tc.retryable {
				t.Errorf("got %s retryable=%v, want %s retryable=%v", c.Class, c.Retryable, tc.class, tc.retryable)
			}
			if !c.RetryAfterUntil.Equal(until) {
				t.Errorf("RetryAfterUntil = %v, want %v", c.RetryAfterUntil, until)
			}
			if c.Message == "" {
				t.Error("empty message")
			}
		})
	}
}

func TestClassifyMessage(t *testing.T) {
	for _, tc := range []struct {
		f    Failure
		want string
	}{
		{Failure{Phase: Status, Status: 529, Body: []byte(`{"type":"error","error":{"type":"overloaded_error","message":"  chat.Overloaded\n"}}`)}, "chat.Overloaded"},
		{Failure{Phase: Status, Status: 503}, "HTTP 503 Service Unavailable"},
		{Failure{Phase: Status, Status: 500, Body: []byte(`{"error":"model runner crashed"}`)}, "model runner crashed"},
		{Failure{Phase: BeforeHeaders, Err: errors.New("dial tcp 127.0.0.1:1: connect: connection refused")},
			"dial tcp 127.0.0.1:1: connect: connection refused"},
		{Failure{Phase: InStreamBeforeDelta, Kind: NetTimeoutFirstDelta, Err: context.Canceled}, "no reply text before the timeout"},
		{Failure{Phase: InStreamAfterDelta, Kind: NetCut, Err: io.ErrUnexpectedEOF},
			"the stream ended before the reply was complete: unexpected EOF"},
	} {
		if got := Classify(tc.f).Message; got != tc.want {
			t.Errorf("message %q, want %q", got, tc.want)
		}
	}
	long := make([]byte, 5000)
	for i := range long {
		long[i] = 'x'
	}
	if got := Classify(Failure{Phase: Status, Status: 502, Body: long}).Message; len([]rune(got)) != maxMessage+1 {
		t.Errorf("a long text body gives a %d-rune message, want it cut to %d and an ellipsis", len([]rune(got)), maxMessage)
	}
}

func TestClassifyInStream(t *testing.T) {
	for _, tc := range []struct {
		name, sse string
		class     chat.Class
		retryable bool
	}{
		{"llama.cpp error field", "error: {\"code\":400,\"message\":\"request (9000 tokens) exceeds the available context size (8192 tokens)\",\"type\":\"exceed_context_size_error\"}\n\ndata: [DONE]\n\n",
			chat.ContextOverflow, false},
		{"numeric code 429 in a frame", "data: {\"error\":{\"message\":\"slow down\",\"code\":429}}\n\n", chat.RateLimited, true},
		{"numeric code 500 in a frame", "data: {\"error\":{\"message\":\"boom\",\"code\":500}}\n\n", chat.ServerError, true},
		{"string code 503 in a frame", "data: {\"error\":{\"message\":\"busy\",\"code\":\"503\"}}\n\n", chat.Overloaded, true},
		{"responses api rate limit line", "{\"type\":\"error\",\"code\":\"rate_limit_exceeded\",\"message\":\"Rate limit reached\"}\n", chat.RateLimited, true},
		{"gemini array frame, model missing", "data: [{\"error\":{\"code\":404,\"message\":\"models/gemini-9 is not found\",\"status\":\"NOT_FOUND\"}}]\n\n",
			chat.ModelNotFound, false},
		{"frame that says nothing specific", "data: {\"error\":{\"message\":\"something went wrong\"}}\n\n", chat.ServerError, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frame, ok := StreamError([]byte(tc.sse))
			if !ok {
				t.Fatal("no error frame found")
			}
			c := Classify(Failure{Phase: InStreamBeforeDelta, Status: 200, Body: frame, Now: testNow})
			if c.Class != tc.class || c.Retryable != tc.retryable {
				t.Errorf("got %s retryable=%v, want %s retryable=%v", c.Class, c.Retryable, tc.class, tc.retryable)
			}
		})
	}
}

// timeoutError is a net.Error that timed out, as net/http's client reports one.
type timeoutError struct{}

func (timeoutError) Error() string {
	return "net/http: request canceled (Client.Timeout exceeded while awaiting headers)"
}
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

func TestClassifyNetworkErrors(t *testing.T) {
	post := func(err error) error {
		return &url.Error{Op: "Post", URL: "http://127.0.0.1:1/v1/chat/completions", Err: err}
	}
	for _, tc := range []struct {
		name  string
		err   error
		kind  NetKind
		class chat.Class
	}{
		{"refused", post(&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}), NetUnknown, chat.Network},
		{"reset", post(&net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}), NetUnknown, chat.Network},
		{"dns failing for a while", post(&net.OpError{Op: "dial", Err: &net.DNSError{Err: "server misbehaving", Name: "api.openai.com", IsTemporary: true}}), NetUnknown, chat.Network},
		{"dns timeout", post(&net.OpError{Op: "dial", Err: &net.DNSError{Err: "i/o timeout", Name: "api.openai.com", IsTimeout: true}}), NetUnknown, chat.Network},
		{"dial timeout never connected", post(&net.OpError{Op: "dial", Err: os.ErrDeadlineExceeded}), NetUnknown, chat.Network},
		{"tls handshake timeout", post(errors.New("net/http: TLS handshake timeout")), NetUnknown, chat.Network},
		{"eof before headers", post(io.EOF), NetUnknown, chat.Network},
		{"unexpected eof", fmt.Errorf("reading stream: %w", io.ErrUnexpectedEOF), NetUnknown, chat.Network},
		{"read timeout", post(&net.OpError{Op: "read", Err: os.ErrDeadlineExceeded}), NetUnknown, chat.Timeout},
		{"client timeout awaiting headers", post(timeoutError{}), NetUnknown, chat.Timeout},
		{"context deadline", post(context.DeadlineExceeded), NetUnknown, chat.Timeout},
		{"connect text only", errors.New(`Post "https://x/v1": read tcp 10.0.0.1:5->10.0.0.2:443: read: connection reset by peer`), NetUnknown, chat.Network},
		{"timeout text only", errors.New(`Post "https://x/v1": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`), NetUnknown, chat.Timeout},
		{"header timeout hint", nil, NetTimeoutHeaders, chat.Timeout},
		{"first delta timeout hint", nil, NetTimeoutFirstDelta, chat.Timeout},
		{"first delta timeout ended by cancelling", context.Canceled, NetTimeoutFirstDelta, chat.Timeout},
		{"cut stream", io.ErrUnexpectedEOF, NetCut, chat.Network},
		{"no error at all", nil, NetUnknown, chat.Network},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A body cannot exist before headers; a stray one must not sway the class.
			stray := []byte(`{"error":{"message":"invalid api key","code":401}}`)
			c := Classify(Failure{Phase: BeforeHeaders, Err: tc.err, Kind: tc.kind, Body: stray, Now: testNow})
			if c.Class != tc.class || !c.Retryable {
				t.Errorf("got %s retryable=%v, want %s retryable", c.Class, c.Retryable, tc.class)
			}
			if c.Message == "" {
				t.Error("empty message")
			}
		})
	}
}

// No wait makes this machine trust a certificate or a made-up host name exist.
func TestClassifyNetworkErrorsThatCannotPass(t *testing.T) {
	post := func(err error) error {
		return &url.Error{Op: "Post", URL: "https://api.example.test/v1/chat/completions", Err: err}
	}
	for _, tc := range []struct {
		name, rule string
		err        error
	}{
		{"unknown authority", RuleTLSAuthority, post(&tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}})},
		{"expired", RuleTLSExpired, post(x509.CertificateInvalidError{Reason: x509.Expired})},
		{"another name", RuleTLSHost, post(x509.HostnameError{Host: "api.example.test", Certificate: &x509.Certificate{}})},
		{"another purpose", "net.tls-certificate", post(x509.CertificateInvalidError{Reason: x509.IncompatibleUsage})},
		{"unknown authority, text only", RuleTLSAuthority, errors.New(`Post "https://x/v1": tls: failed to verify certificate: x509: certificate signed by unknown authority`)},
		{"expired, text only", RuleTLSExpired, errors.New(`Post "https://x/v1": tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time 2026-12-02T00:49:31Z is after 2026-11-30T12:00:00Z`)},
		{"another name, text only", RuleTLSHost, errors.New(`Post "https://x/v1": tls: failed to verify certificate: x509: certificate is valid for api.example.com, not localhost`)},
		{"certificate, text only", "net.tls-certificate", errors.New(`Post "https://x/v1": x509: certificate specifies an incompatible key usage`)},
		{"the proxy asks for a password", RuleProxyDenied, post(&ProxyAnswer{Status: 407, Text: "407 Proxy Authentication Required", Target: "x:443"})},
		{"the proxy forbids the host", RuleProxyDenied, post(&ProxyAnswer{Status: 403, Text: "403 Forbidden", Target: "x:443"})},
		{"the proxy asks for a password, text only", RuleProxyDenied, errors.New(`Post "https://x/v1/chat/completions": Proxy Authentication Required`)},
		{"the proxy forbids the host, text only", RuleProxyDenied, errors.New(`Post "https://x/v1/chat/completions": the proxy refused a tunnel to x:443: 403 Forbidden`)},
		{"the proxy does not exist", RuleProxyUnknownHost, post(&net.OpError{Op: "proxyconnect", Net: "tcp",
			Err: &net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "proxy.corp", IsNotFound: true}}})},
		{"no such host", "net.unknown-host", post(&net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "api.opneai.com", IsNotFound: true}})},
		{"no such host, text only", "net.unknown-host", errors.New(`Post "https://api.opneai.com/v1": dial tcp: lookup api.opneai.com: no such host`)},
	} {
		c := Classify(Failure{Phase: BeforeHeaders, Err: tc.err, Now: testNow})
		if c.Class != chat.Network || c.Retryable || c.Rule != tc.rule {
			t.Errorf("%s: got %s retryable=%v by %s, want network, not retryable, by %s", tc.name, c.Class, c.Retryable, c.Rule, tc.rule)
		}
	}
}

func TestClassifyNotRetryableStreamEnds(t *testing.T) {
	for _, tc := range []struct {
		f    Failure
		want chat.Class
	}{
		{Failure{Phase: InStreamBeforeDelta, Status: 200, Kind: NetEmpty}, chat.EmptyResponse},
		{Failure{Phase: BeforeHeaders, Err: fmt.Errorf("send: %w", context.Canceled)}, chat.Cancelled},
	} {
		c := Classify(tc.f)
		if c.Class != tc.want || c.Retryable {
			t.Errorf("got %s retryable=%v, want %s not retryable", c.Class, c.Retryable, tc.want)
		}
	}
}

func TestRefusedHere(t *testing.T) {
	refused := func(ip string) error {
		return &url.Error{Op: "Post", URL: "http://x/v1/chat/completions", Err: &net.OpError{Op: "dial", Net: "tcp",
			Addr: &net.TCPAddr{IP: net.ParseIP(ip), Port: 8080}, Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{refused("127.0.0.1"), "127.0.0.1:8080"},
		{refused("::1"), "[::1]:8080"},
		{refused("10.0.0.7"), ""}, // another machine: it may come back by itself
		{&net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 1}, Err: os.NewSyscallError("connect", syscall.ETIMEDOUT)}, ""},
		{errors.New("connection refused"), ""},
	} {
		addr, ok := RefusedHere(Failure{Phase: BeforeHeaders, Err: c.err, Now: time.Now()})
		if addr != c.want || ok != (c.want != "") {
			t.Errorf("RefusedHere(%v) = %q, %v; want %q", c.err, addr, ok, c.want)
		}
		if cls := Classify(Failure{Phase: BeforeHeaders, Err: c.err, Now: time.Now()}); ok && !cls.Retryable {
			t.Errorf("%v is not retryable by Tier 1", c.err)
		}
	}
}

// What Tier 1 gives up on is final for Tier 2 when only the operator can fix it: a connection
// this machine or a proxy refused. Tier 1 itself retries both (Classify leaves them retryable).
func TestFinal(t *testing.T) {
	dial := func(op, ip string) error {
		return &url.Error{Op: "Post", URL: "http://x/v1/chat/completions", Err: &net.OpError{Op: op, Net: "tcp",
			Addr: &net.TCPAddr{IP: net.ParseIP(ip), Port: 8080}, Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
	}
	// Anthropic's 529, as the corpus has it.
	overloaded := Failure{Phase: Status, Status: 529, Body: []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)}
	for _, c := range []struct {
		name      string
		f         Failure
		retryable bool
		rule      string
	}{
		{"nothing listening here", Failure{Phase: BeforeHeaders, Err: dial("dial", "127.0.0.1")}, false, "+" + ruleRefusedHere},
		{"the proxy refused", Failure{Phase: BeforeHeaders, Err: dial("proxyconnect", "10.0.0.2")}, false, "+" + ruleProxyRefused},
		{"another machine refused", Failure{Phase: BeforeHeaders, Err: dial("dial", "10.0.0.7")}, true, ""},
		{"overloaded", overloaded, true, ""},
	} {
		c.f.Now = time.Now()
		tier1 := Classify(c.f)
		if !tier1.Retryable {
			t.Errorf("%s: Tier 1 would not retry %+v", c.name, tier1)
		}
		got := Final(tier1, c.f)
		if got.Retryable != c.retryable || got.Rule != tier1.Rule+c.rule || got.Class != tier1.Class || got.Label != tier1.Label {
			t.Errorf("%s: Final %+v, want retryable %v, rule %q", c.name, got, c.retryable, tier1.Rule+c.rule)
		}
	}
}
