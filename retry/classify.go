// Package retry decides whether a failed request to an LLM endpoint can succeed if sent again,
// and when. It is pure policy and classification: it performs no I/O and never sleeps.
//
// Classification runs the operator's own rules (UserRule) and then an ordered list of named
// built-in rules (responseRules, noResponseRules); the classification names the rule that
// decided. ParseRaw reads a failure written out as text, for classifying one by hand.
package retry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"parley/internal/chat"
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
	// NetUnreadable: a 2xx answer parley cannot read as a reply: no event stream, completion
	// or error (ReadAnswer), or a stream line too long to hold. Err says what came.
	NetUnreadable
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

// Rule names for the adjustments made after a class is chosen, appended to the deciding
// rule's name ("rate.words+advice.far-reset").
const (
	ruleFarReset    = "advice.far-reset"
	ruleShouldRetry = "advice.should-retry"
	// ruleStatedReset turns a quota or a provider's usage cap into a scheduled wait: the
	// provider stated when it frees, within quotaHorizon (see scheduledByReset).
	ruleStatedReset = "advice.stated-reset"
	// ruleImplausibleReset keeps a daily (or longer) quota final when its stated wait is
	// shorter than minLongWindowWait: such a wait is the provider's generic per-minute hint,
	// and retrying on it fails again all day.
	ruleImplausibleReset = "advice.implausible-reset"
	// ruleRefusedHere and ruleProxyRefused make a network failure final once Tier 1 gives
	// up (Final): only the operator can start the server or fix the proxy.
	ruleRefusedHere  = "net.refused-here"
	ruleProxyRefused = "net.proxy-refused"
)

// minLongWindowWait is the shortest stated wait believed of a limit counted per day, week or
// month. Gemini states a retryDelay of seconds for a used-up daily quota; a rolling daily window
// (Groq's tokens per day) states minutes, which is believed.
const minLongWindowWait = time.Minute

// ResetLabel labels a quota or usage cap that Classify made a scheduled wait: the banner then
// reads "Quota resets — retrying after 14:50".
const ResetLabel = "Quota resets"

// rulePermission decides an authentication failure that is a permission: the key was accepted,
// the account is not allowed this. It is labelled PermissionLabel, so that the fix offered is
// not another key.
const rulePermission = "auth.permission"

// PermissionLabel labels a permission or entitlement block (an organisation not verified or
// disabled, a use-case form not submitted, a model withdrawn for the account).
const PermissionLabel = "Not permitted"

// Classifier classifies failures with the operator's own rules first, then the built-in ones
// (responseRules and noResponseRules). The zero Classifier uses only the built-in rules.
type Classifier struct {
	// Rules are tried in order before any built-in rule; the first that matches decides.
	Rules []UserRule
}

// Classify classifies f with the built-in rules only.
func Classify(f Failure) chat.Classification {
	return Classifier{}.Classify(f)
}

// Classify decides the class of a failed attempt from everything the failure shows: the
// status, the provider's error type, code and message at every level of nesting, the agent's
// hint, the error value and the server's retry advice. A status alone never decides: a 429 can
// be a hard quota and a 400 an authentication failure. The classification names the rule that
// decided it.
//
// A user rule that matches decides class, retryability and (when it sets a wait) the retry time
// by itself. Otherwise, beyond the class's own retryability, advice more than 12 hours away
// turns a retryable class into chat.QuotaExhausted, and x-should-retry: false makes any class
// not retryable (while x-should-retry: true cannot make a class retryable that is not).
// RetryAfterUntil is set whenever the server advised a time.
func (c Classifier) Classify(f Failure) chat.Classification {
	s := read(f)
	advice := ParseAdvice(f.Header, f.Body, f.Now)
	classed := func(class chat.Class, rule string) chat.Classification {
		out := chat.NewClassification(class, s.message())
		out.RetryAfterUntil, out.Rule = advice.NotBefore, rule
		return out
	}
	if i, ok := c.match(s); ok {
		u := c.Rules[i]
		out := classed(u.Class, "user:"+u.label(i))
		out.Retryable = u.Retryable
		if u.Wait > 0 {
			out.RetryAfterUntil = f.Now.Add(u.Wait)
		}
		return out
	}
	r := s.decide()
	out := classed(r.class, r.name)
	out.Retryable = out.Retryable && !finalRules[r.name]
	if r.name == rulePermission {
		out.Label = PermissionLabel
	}
	switch scheduledByReset(s, r, advice, f.Now) {
	case resetScheduled:
		out = classed(chat.RateLimited, out.Rule+"+"+ruleStatedReset)
		out.Label = ResetLabel
	case resetImplausible:
		out.Rule += "+" + ruleImplausibleReset
	}
	if out.Retryable && !advice.NotBefore.IsZero() && advice.NotBefore.Sub(f.Now) > quotaHorizon {
		out = classed(chat.QuotaExhausted, out.Rule+"+"+ruleFarReset)
	}
	if out.Retryable && advice.ShouldRetry != nil && !*advice.ShouldRetry {
		out.Retryable = false
		out.Rule += "+" + ruleShouldRetry
	}
	return out
}

// resetVerdict is what a stated reset does to a final class.
type resetVerdict int

const (
	resetIgnored     resetVerdict = iota // no stated reset, or the class stays as decided
	resetScheduled                       // the failure is a wait until the stated time
	resetImplausible                     // a stated wait too short for the limit's window
)

// scheduledByReset decides whether the provider's stated reset makes the failure rule r decided
// a scheduled wait. The server's numbers win over its words: a quota, a per-day window or a
// usage cap that the provider says frees within quotaHorizon is a wait, however it is worded.
// It stays final only where no wait can cure it: a limit of nothing (limit: 0), a request the
// balance cannot pay for, a payment or a plan that lacks the feature (moneyWords, 402).
func scheduledByReset(s *signals, r rule, a Advice, now time.Time) resetVerdict {
	wait := a.NotBefore.Sub(now)
	if a.NotBefore.IsZero() || wait > quotaHorizon {
		return resetIgnored
	}
	switch r.name {
	case "quota.window", "quota.words", "spend.limit":
	default:
		return resetIgnored
	}
	if says(moneyWords)(s) {
		return resetIgnored
	}
	if r.name == "quota.window" && wait < minLongWindowWait {
		return resetImplausible
	}
	return resetScheduled
}

// match returns the index of the first user rule that matches s. User rules read what a
// provider said, so they apply only where there is a response or an error frame.
func (c Classifier) match(s *signals) (int, bool) {
	if !s.response {
		return 0, false
	}
	for i, u := range c.Rules {
		if u.matches(s) {
			return i, true
		}
	}
	return 0, false
}

// signals is what the rules read from one failure.
type signals struct {
	f Failure
	// response is set when there is a provider's answer to read: an error status, or an error
	// frame inside a stream.
	response bool
	// status is the HTTP status the answer stands for: the response's own when it is an error
	// status, else (inside a 200 stream) the one the error frame states.
	status int
	pe     providerError
}

// read gathers the signals of f.
func read(f Failure) *signals {
	s := &signals{f: f}
	if f.Phase == BeforeHeaders { // without a response there is no body to read
		return s
	}
	pe, found := parseProviderError(f.Body)
	s.response, s.pe = f.Phase == Status || found, pe
	s.status = f.Status
	if s.status < 400 {
		s.status = pe.status
	}
	return s
}

// message is the provider's message, or a description of what the agent observed.
func (s *signals) message() string {
	f := s.f
	if s.response {
		switch {
		case s.pe.message != "":
			return s.pe.message
		case f.Phase == Status:
			return strings.TrimSpace(fmt.Sprintf("HTTP %d %s", f.Status, http.StatusText(f.Status)))
		}
		return "the stream reported an error"
	}
	if f.Kind == NetUnreadable && f.Err != nil {
		return f.Err.Error()
	}
	if what, ok := observed[f.Kind]; ok {
		return describe(what, f.Err)
	}
	switch {
	case f.Err != nil:
		return f.Err.Error()
	case f.Phase == BeforeHeaders:
		return "no response"
	}
	return "the stream failed"
}

// observed words what the agent saw for each kind of failure it reports.
var observed = map[NetKind]string{
	NetTimeoutHeaders:    "no response headers before the timeout",
	NetTimeoutFirstDelta: "no reply text before the timeout",
	NetCut:               "the stream ended before the reply was complete",
	NetEmpty:             "the stream ended without any reply text",
	NetStreamIdle:        "the stream went quiet after the reply began",
}

// describe words what the agent observed, with the error when it adds anything: a cancelled
// context only says how the attempt was stopped.
func describe(what string, err error) string {
	if err == nil || errors.Is(err, context.Canceled) {
		return what
	}
	return what + ": " + err.Error()
}

// Final is what a failure Tier 1 gives up on tells Tier 2 and the operator: c, as Classify
// made it of f, except that a connection this machine refused (RefusedHere) or a proxy
// refused (ProxyRefused) is not retryable. Tier 1's quick attempts may catch a server that is
// restarting, but waiting longer starts no server and fixes no proxy: that is the operator's
// to do. The rule says which made it final.
func Final(c chat.Classification, f Failure) chat.Classification {
	if c.Class != chat.Network || !c.Retryable {
		return c
	}
	if _, ok := RefusedHere(f); ok {
		c.Retryable, c.Rule = false, c.Rule+"+"+ruleRefusedHere
	} else if _, ok := ProxyRefused(f); ok {
		c.Retryable, c.Rule = false, c.Rule+"+"+ruleProxyRefused
	}
	return c
}

// ProxyRefused reports whether f is the proxy refusing the connection, and the proxy's error.
func ProxyRefused(f Failure) (*net.OpError, bool) {
	var opErr *net.OpError
	if !errors.As(f.Err, &opErr) || opErr.Op != "proxyconnect" {
		return nil, false
	}
	return opErr, true
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
