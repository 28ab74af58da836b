package retry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"

	"parley/internal/chat"
)

// TestEachRuleDecides gives every built-in rule an example it decides, in words providers use,
// and fails for a rule without one: a rule nothing reaches is dead.
func TestEachRuleDecides(t *testing.T) {
	status := func(code int, body string) Failure {
		return Failure{Phase: Status, Status: code, Body: []byte(body), Now: testNow}
	}
	frame := func(body string) Failure {
		return Failure{Phase: InStreamBeforeDelta, Status: 200, Body: []byte(body), Now: testNow}
	}
	netErr := func(err error) Failure { return Failure{Phase: BeforeHeaders, Err: err, Now: testNow} }
	cases := []struct {
		rule string
		f    Failure
	}{
		{"filter.moderation", status(500, `{"success":false,"error":{"message":"azure-openai error: The response was filtered due to the prompt triggering Azure OpenAI's content management policy.","code":"INTERNAL_ERROR"},"status":500}`)},
		{"quota.limit-zero", status(429, `{"error":{"code":429,"message":"Quota exceeded for metric: x/requests, limit: 0, model: m","status":"RESOURCE_EXHAUSTED"}}`)},
		{"quota.window", status(429, `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your daily rate limit"}}`)},
		{"request.too-large", status(429, `{"error":{"message":"Rate limit reached for model m on tokens per minute (TPM): Limit 7000, Used 0, Requested ~12903.","code":"rate_limit_exceeded"}}`)},
		{"rate.window", status(429, `{"message":"Requests per minute limit exceeded - too many requests sent.","code":"request_quota_exceeded"}`)},
		{"overflow.words", status(500, `{"error":{"code":500,"message":"Context size has been exceeded.","type":"server_error"}}`)},
		{"spend.afford", status(402, `{"error":{"message":"This request requires more credits, or fewer max_tokens. You requested up to 32000 tokens, but can only afford 27342.","code":402}}`)},
		{"quota.words", status(403, `{"code": 30011, "message": "Your paid balance is insufficient. Please top up and try again."}`)},
		{"spend.limit", status(400, `{"type":"error","error":{"type":"invalid_request_error","message":"You have reached your specified API usage limits."}}`)},
		{"auth.permission", status(400, `{"type":"error","error":{"type":"invalid_request_error","message":"This organization has been disabled."}}`)},
		{"auth.words", status(400, `[{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}}]`)},
		{"model.not-found", status(400, `{"errors":[{"code":5007,"message":"No such model @cf/x or task"}],"success":false}`)},
		{"status.auth", status(403, `{"errors":[{"code":3023,"message":"Service unavailable for account"}],"success":false}`)},
		{"status.payment", status(402, `{"error":{"message":"Account on hold"}}`)},
		{"status.not-found-model", status(404, `{"status":404,"title":"Not Found","detail":"Function 'abc': Not found for account 'x'"}`)},
		{"server.upstream-lost-status", status(400, `{"success":false,"result":[],"messages":[],"error":[{"code":2005,"message":"Failed to get response from provider"}]}`)},
		{"status.client", status(400, `{"error":{"message":"unexpected EOF","type":"invalid_request_error"}}`)},
		{"server.upstream-unreachable", status(503, `{"html-message":"fetch failed","provider":"openai"}`)},
		{"network.words", status(200, `{"html-message":"Network connection lost."}`)},
		{"overloaded.words", status(429, `{"error":{"message":"Model busy, retry later"}}`)},
		{"rate.words", status(429, `{"error":{"message":"MinimaxException - rate limit exceeded","code":"429"}}`)},
		{"rate.concurrency", status(429, `{"error":{"message":"Concurrency quota exceeded, please reduce the number of parallel requests","code":"1302"}}`)},
		{"request.unsupported", status(500, `{"error":{"code":500,"message":"image input is not supported - hint: if this is unexpected, you may need to provide the mmproj","type":"server_error"}}`)},
		{"rate.exception", status(400, `{"error":{"message":"litellm.RateLimitError: RateLimitError: OpenAIException - Error code: 429","type":null,"param":null,"code":"400"}}`)},
		{"overloaded.exception", status(400, `{"error":{"message":"litellm.ServiceUnavailableError: AnthropicException - upstream","code":"400"}}`)},
		{"server.exception", status(400, `{"error":{"message":"litellm.APIConnectionError: Connection error.","code":"400"}}`)},
		{"status.rate", status(429, `{"error":{"code":"1302","message":"您当前使用该API的并发数过高"}}`)},
		{"status.overloaded", status(503, ``)},
		{"status.timeout", status(408, `{"errors":[{"code":3007,"message":"Request timeout"}]}`)},
		{"status.unsupported", status(501, ``)},
		{"status.server", status(524, `<html><title>x | 524: A timeout occurred</title></html>`)},
		{"status.other", status(302, ``)},
		{"stream.error", frame(`{"error":{"message":"something went wrong"}}`)},
		{"stream.timeout-headers", Failure{Phase: BeforeHeaders, Kind: NetTimeoutHeaders, Now: testNow}},
		{"stream.timeout-first-delta", Failure{Phase: InStreamBeforeDelta, Status: 200, Kind: NetTimeoutFirstDelta, Err: context.Canceled, Now: testNow}},
		{"stream.cut", Failure{Phase: InStreamAfterDelta, Status: 200, Kind: NetCut, Err: io.ErrUnexpectedEOF, Now: testNow}},
		{"stream.empty", Failure{Phase: InStreamBeforeDelta, Status: 200, Kind: NetEmpty, Now: testNow}},
		{"stream.idle", Failure{Phase: InStreamAfterDelta, Status: 200, Kind: NetStreamIdle, Now: testNow}},
		{"stream.unreadable", Failure{Phase: InStreamBeforeDelta, Status: 200, Kind: NetUnreadable,
			Err: errors.New("the endpoint answered 200 text/html, not an event stream — a login page, or the wrong URL? (<!DOCTYPE html>)"), Now: testNow}},
		{"cancelled", netErr(context.Canceled)},
		{"net.deadline", netErr(context.DeadlineExceeded)},
		{"net.tls-handshake", netErr(errors.New("net/http: TLS handshake timeout"))},
		{"net.proxy-denied", netErr(&ProxyAnswer{Status: 407, Text: "407 Proxy Authentication Required", Target: "api.invalid:443"})},
		{"net.proxy-answer", netErr(&ProxyAnswer{Status: 502, Text: "502 Bad Gateway", Target: "api.invalid:443"})},
		{"net.proxy-unknown-host", netErr(&net.OpError{Op: "proxyconnect", Net: "tcp",
			Err: &net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "proxy.invalid", IsNotFound: true}}})},
		{"net.tls-expired", netErr(x509.CertificateInvalidError{Reason: x509.Expired})},
		{"net.tls-host", netErr(x509.HostnameError{Host: "api.invalid", Certificate: &x509.Certificate{}})},
		{"net.tls-authority", netErr(&tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}})},
		{"net.tls-certificate", netErr(&tls.CertificateVerificationError{Err: x509.CertificateInvalidError{Reason: x509.IncompatibleUsage}})},
		{"net.unknown-host", netErr(&net.DNSError{Err: "no such host", Name: "api.invalid", IsNotFound: true})},
		{"net.dns", netErr(&net.DNSError{Err: "server misbehaving", Name: "api.invalid", IsTemporary: true})},
		{"net.dial", netErr(&net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)})},
		{"net.timeout", netErr(&net.OpError{Op: "read", Err: os.ErrDeadlineExceeded})},
		{"net.dropped", netErr(&net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)})},
		{"net.refused-words", netErr(errors.New(`dial tcp 127.0.0.1:11434: connect: connection refused`))},
		{"net.timeout-words", netErr(errors.New(`http2: timeout awaiting response headers`))},
		{"net.other", netErr(errors.New("something else"))},
		{"stream.failed", Failure{Phase: InStreamBeforeDelta, Status: 200, Now: testNow}},
	}
	covered := map[string]bool{}
	for _, tc := range cases {
		c := Classify(tc.f)
		if c.Rule != tc.rule {
			t.Errorf("%s: decided by %q as %s (%q)", tc.rule, c.Rule, c.Class, c.Message)
		}
		covered[tc.rule] = true
	}
	for _, r := range append(responseRules, noResponseRules...) {
		if !covered[r.name] {
			t.Errorf("rule %s has no example here", r.name)
		}
	}
}

func TestRuleNamesAreDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range append(responseRules, noResponseRules...) {
		if r.name == "" || seen[r.name] || strings.HasPrefix(r.name, "user:") {
			t.Errorf("rule %q: names must be distinct, and user: is the operator's", r.name)
		}
		seen[r.name] = true
	}
}

func TestAdjustmentsNameThemselves(t *testing.T) {
	for _, tc := range []struct {
		f     Failure
		rule  string
		class chat.Class
	}{
		{Failure{Phase: Status, Status: 429, Header: header("Retry-After", "86400"),
			Body: []byte(`{"error":{"code":"429","message":"Requests have exceeded token rate limit of your current tier."}}`)},
			"rate.words+" + ruleFarReset, chat.QuotaExhausted},
		{Failure{Phase: Status, Status: 529, Header: header("x-should-retry", "false"),
			Body: []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)},
			"overloaded.words+" + ruleShouldRetry, chat.Overloaded},
	} {
		tc.f.Now = testNow
		c := Classify(tc.f)
		if c.Rule != tc.rule || c.Class != tc.class || c.Retryable {
			t.Errorf("got %s %s retryable=%v, want %s %s not retryable", c.Rule, c.Class, c.Retryable, tc.rule, tc.class)
		}
	}
}

// A permission is told apart from a wrong key and from a missing model: only an accepted key
// lacks a permission, and a model that "does not exist or you do not have access to it" is
// missing as far as anyone can tell.
func TestPermissionIsNeitherAKeyNorAModel(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		class  chat.Class
		label  string
	}{
		{"an organisation to verify", 400, `{"error":{"message":"Your organization must be verified to stream this model. Please go to: https://platform.openai.com/settings/organization/general and click on Verify Organization.","type":"invalid_request_error","param":"stream","code":"unsupported_value"}}`,
			chat.AuthFailed, PermissionLabel},
		{"azure's wrong key, worded as access denied", 401, `{"error":{"code":"401","message":"Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource."}}`,
			chat.AuthFailed, chat.Label(chat.AuthFailed)},
		{"a model that does not exist or is not yours", 404, `{"error":{"message":"The model ` + "`gpt-5`" + ` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`,
			chat.ModelNotFound, chat.Label(chat.ModelNotFound)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Classify(Failure{Phase: Status, Status: tc.status, Body: []byte(tc.body), Now: testNow})
			if c.Class != tc.class || c.Label != tc.label || c.Retryable {
				t.Errorf("got %s %q retryable=%v by %s; want %s %q, not retryable", c.Class, c.Label, c.Retryable, c.Rule, tc.class, tc.label)
			}
		})
	}
}
