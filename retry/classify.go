// Package retry decides whether a failed request to an LLM endpoint can succeed if sent again,
// and when. It is pure policy and classification: it performs no I/O and never sleeps.
package retry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"parley/agent/chat"
)

// Phase says where in a request a failure happened.
type Phase int

// The phases of a request, in order.
const (
	// BeforeHeaders: no response arrived (network error, timeout awaiting headers).
	BeforeHeaders Phase = iota
	// Status: the endpoint answered with a non-2xx status.
	Status
	// InStreamBeforeDelta: inside a 200 stream, before the first output delta.
	InStreamBeforeDelta
	// InStreamAfterDelta: inside a 200 stream, after output (answer or thinking) arrived.
	InStreamAfterDelta
)

// NetKind is what the agent observed about a failure that the error value alone may not show.
type NetKind int

// The kinds of failure the agent can report.
const (
	// NetUnknown: nothing beyond Err and Body.
	NetUnknown NetKind = iota
	// NetTimeoutHeaders: no response headers within the header timeout.
	NetTimeoutHeaders
	// NetTimeoutFirstDelta: no output (answer or thinking) within the first-delta timeout
	// (comments and role-only chunks do not count).
	NetTimeoutFirstDelta
	// NetCut: the stream ended with neither [DONE] nor a finish_reason.
	NetCut
	// NetEmpty: a 200 stream finished normally without any content.
	NetEmpty
	// NetStreamIdle: after the first output the stream sent no bytes for the idle timeout.
	NetStreamIdle
)

// Failure is everything known about one failed attempt.
type Failure struct {
	// Phase is where in the request the failure happened.
	Phase Phase
	// Status is the HTTP status; 0 when no response arrived.
	Status int
	// Header holds the response headers, when there was a response.
	Header http.Header
	// Body is the error body (Status phase) or the error frame's payload (in-stream phases,
	// see StreamError): a JSON object, a JSON array wrapping one, or text.
	Body []byte
	// Err is the transport or stream error, when there is one.
	Err error
	// Kind is the agent's hint about what it observed.
	Kind NetKind
	// Now is when the failure happened; relative retry advice counts from it. Required.
	Now time.Time
}

// Advice further away than this is a hard quota whatever the provider called it: no one waits
// at a terminal for half a day.
const quotaHorizon = 12 * time.Hour

// maxMessage bounds a message taken from a body that is not a provider error object, such as a
// proxy's HTML error page.
const maxMessage = 300

// Classify decides the class of a failed attempt from everything the failure shows: the
// status, the provider's error type, code and message, the agent's hint, the error value and
// the server's retry advice. A status alone never decides: a 429 can be a hard quota and a 400
// an authentication failure.
//
// Beyond the class's own retryability, advice more than 12 hours away turns a retryable class
// into chat.QuotaExhausted, and x-should-retry: false makes any class not retryable (while
// x-should-retry: true cannot make a class retryable that is not). RetryAfterUntil is set
// whenever the server advised a time.
func Classify(f Failure) chat.Classification {
	class, msg := classify(f)
	advice := ParseAdvice(f.Header, f.Body, f.Now)
	retryable := class.Retryable()
	if retryable && !advice.NotBefore.IsZero() && advice.NotBefore.Sub(f.Now) > quotaHorizon {
		class, retryable = chat.QuotaExhausted, false
	}
	if advice.ShouldRetry != nil && !*advice.ShouldRetry {
		retryable = false
	}
	return chat.Classification{
		Retryable:       retryable,
		Class:           class,
		RetryAfterUntil: advice.NotBefore,
		Label:           chat.Label(class),
		Message:         msg,
	}
}

func classify(f Failure) (chat.Class, string) {
	var (
		pe    providerError
		found bool
	)
	if f.Phase != BeforeHeaders { // without a response there is no body to read
		pe, found = parseProviderError(f.Body)
	}
	if f.Phase == Status || found {
		status := f.Status
		if f.Phase != Status && pe.status != 0 {
			// Inside a 200 stream an error frame's numeric code is the status it stands for.
			status = pe.status
		}
		msg := pe.message
		if msg == "" && f.Phase == Status {
			msg = strings.TrimSpace(fmt.Sprintf("HTTP %d %s", f.Status, http.StatusText(f.Status)))
		}
		return classifyResponse(f.Phase, status, pe), msg
	}
	switch f.Kind {
	case NetTimeoutHeaders:
		return chat.Timeout, describe("no response headers before the timeout", f.Err)
	case NetTimeoutFirstDelta:
		return chat.Timeout, describe("no reply text before the timeout", f.Err)
	case NetCut:
		return chat.Network, describe("the stream ended before the reply was complete", f.Err)
	case NetEmpty:
		return chat.EmptyResponse, describe("the stream ended without any reply text", f.Err)
	case NetStreamIdle:
		return chat.Timeout, describe("the stream went quiet after the reply began", f.Err)
	}
	if errors.Is(f.Err, context.Canceled) {
		// Checked after Kind: the agent may end a timed-out attempt by cancelling it.
		return chat.Cancelled, f.Err.Error()
	}
	if f.Err != nil {
		return classifyNetError(f.Err), f.Err.Error()
	}
	if f.Phase == BeforeHeaders {
		return chat.Network, "no response"
	}
	return chat.ServerError, "the stream failed"
}

// describe words what the agent observed, with the error when it adds anything: a cancelled
// context only says how the attempt was stopped.
func describe(what string, err error) string {
	if err == nil || errors.Is(err, context.Canceled) {
		return what
	}
	return what + ": " + err.Error()
}

// providerError is the part of a provider's error object that classification reads.
type providerError struct {
	status  int    // a numeric code or status inside the object; 0 when none
	message string // the innermost message, trimmed
	text    string // type, code, status and message, lower-cased, for matching
}

// parseProviderError reads the error object of any provider's shape from body. found is false
// when body is empty or holds no error (a JSON value with nothing error-like in it).
func parseProviderError(body []byte) (pe providerError, found bool) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return pe, false
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		// Plain text, such as a proxy's error page or an unframed message.
		msg := truncate(string(body), maxMessage)
		return providerError{message: msg, text: strings.ToLower(msg)}, true
	}
	if arr, ok := v.([]any); ok && len(arr) > 0 {
		v = arr[0] // Gemini's OpenAI endpoint wraps the error object in an array.
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return pe, false
	}
	inner := obj
	switch e := obj["error"].(type) {
	case string:
		msg := strings.TrimSpace(e)
		return providerError{message: msg, text: strings.ToLower(msg)}, true
	case map[string]any:
		inner = e
	default:
		if finishedByFilter(obj) {
			return providerError{message: "the provider's content filter stopped the reply", text: "content_filter"}, true
		}
	}
	var parts []string
	for _, k := range []string{"type", "code", "status"} {
		switch x := inner[k].(type) {
		case string:
			parts = append(parts, x)
			if pe.status == 0 {
				pe.status = httpStatus(x)
			}
		case json.Number:
			parts = append(parts, x.String())
			if pe.status == 0 {
				pe.status = httpStatus(x.String())
			}
		}
	}
	if m, ok := inner["message"].(string); ok {
		pe.message = strings.TrimSpace(m)
		parts = append(parts, pe.message)
	}
	if len(parts) == 0 {
		return pe, false
	}
	pe.text = strings.ToLower(strings.Join(parts, " "))
	return pe, true
}

// finishedByFilter reports whether a stream chunk ends a choice with finish_reason
// "content_filter": no error object, but the reply was withheld.
func finishedByFilter(chunk map[string]any) bool {
	choices, _ := chunk["choices"].([]any)
	for _, c := range choices {
		if m, ok := c.(map[string]any); ok && m["finish_reason"] == "content_filter" {
			return true
		}
	}
	return false
}

// httpStatus returns s as an HTTP error status, or 0 when s is not one (Mistral's "1300").
func httpStatus(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 400 || n > 599 {
		return 0
	}
	return n
}

// truncate trims s and cuts it to n runes, marking the cut.
func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

var (
	contextMarks = []string{"context_length_exceeded", "exceed_context_size", "maximum context length",
		"context length exceeded", "prompt is too long", "exceeds the available context size",
		"exceeds the maximum number of tokens"}
	filterMarks = []string{"content_filter", "content_policy", "content management policy",
		"responsibleaipolicyviolation"}
	authMarks = []string{"authentication_error", "permission_error", "invalid_api_key", "api_key_invalid",
		"api key not valid", "incorrect api key", "invalid api key", "unauthenticated", "permission_denied"}
	// spendMarks are limits set on spending — by the account's owner, or by what the balance can
	// afford for this request — as opposed to a balance that is simply used up.
	spendMarks = []string{"usage limits", "spend limit", "spending limit", "billing_hard_limit",
		"can only afford", "fewer max_tokens"}
	quotaMarks = []string{"insufficient_quota", "insufficient balance", "insufficient_balance",
		"insufficient credits", "insufficient funds"}
	tooLargeMarks  = []string{"request too large", "request entity too large"}
	rateLimitMarks = []string{"rate_limit", "rate limit", "rate_limited", "resource_exhausted", "too many requests"}
	overloadMarks  = []string{"overloaded", "server busy", "loading model", "unavailable"}

	// limitRequested reads "Limit 30000, … Requested 36536" from a per-minute limit message.
	limitRequested = regexp.MustCompile(`\blimit (\d+),.*?\brequested (\d+)`)
	modelMissing   = regexp.MustCompile(`\bmodels?\b.*\b(not found|does not exist|not_found)`)
)

// classifyResponse classifies an error response or error frame from its effective status and
// its content. The content decides first; the status settles what the content leaves open.
func classifyResponse(phase Phase, status int, pe providerError) chat.Class {
	t := pe.text
	has := func(marks []string) bool {
		for _, m := range marks {
			if strings.Contains(t, m) {
				return true
			}
		}
		return false
	}
	// A client error other than 408, 409 and 429 says the request itself is at fault: its
	// content may refine why, but never make it worth sending again.
	clientFault := status >= 400 && status < 500 && status != 408 && status != 409 && status != 429

	switch {
	case has(contextMarks):
		return chat.ContextOverflow
	case has(filterMarks):
		return chat.ContentFilter
	case status == 401 || status == 403 || has(authMarks):
		return chat.AuthFailed
	case has(spendMarks):
		return chat.SpendLimitExceeded
	case status == 402 || has(quotaMarks):
		return chat.QuotaExhausted
	case strings.Contains(t, "model_not_found") || modelMissing.MatchString(t):
		return chat.ModelNotFound
	case status == 404:
		if strings.Contains(t, "model") {
			return chat.ModelNotFound
		}
		return chat.BadRequest
	case has(tooLargeMarks) || requestExceedsLimit(t):
		// No wait makes a request fit under a per-minute limit smaller than itself.
		return chat.BadRequest
	case clientFault:
		return chat.BadRequest
	case status == 429 || has(rateLimitMarks):
		return chat.RateLimited
	case status == 503 || status == 529 || has(overloadMarks):
		return chat.Overloaded
	case status == 408:
		return chat.Timeout
	case status == 501 || status == 505:
		return chat.BadRequest // the endpoint cannot do this at all
	case status >= 500 || status == 409:
		return chat.ServerError
	case phase == Status:
		return chat.BadRequest // a status parley does not know to be transient
	}
	// An error frame inside a stream that says nothing more specific: the request was accepted,
	// so the fault lies with the server.
	return chat.ServerError
}

// requestExceedsLimit reports whether a rate-limit message names a request bigger than the
// limit itself ("Limit 6000, Requested 7000").
func requestExceedsLimit(t string) bool {
	m := limitRequested.FindStringSubmatch(t)
	if m == nil {
		return false
	}
	limit, _ := strconv.Atoi(m[1])
	requested, _ := strconv.Atoi(m[2])
	return requested > limit
}

// classifyNetError classifies a failure without a response from its error value, falling back
// to its text, which is all a recorded error may have left.
func classifyNetError(err error) chat.Class {
	text := strings.ToLower(err.Error())
	var (
		dnsErr *net.DNSError
		opErr  *net.OpError
		netErr net.Error
	)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return chat.Timeout
	case strings.Contains(text, "tls handshake timeout"):
		return chat.Network // the connection was never set up, like a refusal
	case errors.As(err, &dnsErr):
		return chat.Network
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return chat.Network
	case errors.As(err, &netErr) && netErr.Timeout():
		return chat.Timeout
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.As(err, &opErr):
		return chat.Network
	case strings.Contains(text, "awaiting headers"), strings.Contains(text, "deadline exceeded"),
		strings.Contains(text, "timeout"), strings.Contains(text, "timed out"):
		return chat.Timeout
	}
	return chat.Network
}

// RefusedHere reports whether f's connection was refused by this machine (a loopback address),
// and that address. Nothing listens there: Tier 1's quick attempts may catch a server that is
// restarting, but waiting longer does not start one, so a run that ends this way is for the
// operator to fix, not for Tier 2 to retry.
func RefusedHere(f Failure) (addr string, ok bool) {
	var opErr *net.OpError
	if f.Phase != BeforeHeaders || !errors.As(f.Err, &opErr) || opErr.Op != "dial" || opErr.Addr == nil ||
		!errors.Is(f.Err, syscall.ECONNREFUSED) {
		return "", false
	}
	addr = opErr.Addr.String()
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return "", false
	}
	return addr, true
}
