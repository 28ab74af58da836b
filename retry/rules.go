package retry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"parley/internal/chat"
)

// rule is one named step of classification: a failure that matches is of class.
type rule struct {
	name  string
	class chat.Class
	match func(*signals) bool
}

// decide returns the first built-in rule that matches s.
func (s *signals) decide() rule {
	rules := noResponseRules
	if s.response {
		rules = responseRules
	}
	for _, r := range rules {
		if r.match(s) {
			return r
		}
	}
	return rules[len(rules)-1] // each list ends in a rule that always matches
}

// responseRules classify a failure the provider answered: an error status, or an error frame
// inside a stream. The first rule that matches decides, so the order is the reasoning:
//
//   - What the provider says comes before the status it says it with: statuses are reused (a
//     429 for a used-up balance, a 400 for a bad key, a 500 for moderation or an overflow),
//     while words like "per day" or "context length" are not. The words of every nested error
//     count, and the innermost message is the one shown (see parseProviderError): a gateway's
//     own words ("Provider returned error") say least.
//   - Moderation first: a withheld reply is final whatever the wrapper around it says, and
//     gateways wrap it in any status.
//   - Quota before rate limit: a limit that allows nothing (limit: 0) or resets in hours or days
//     (per day, TPD, monthly, a 5-hour plan window) is a quota however it is worded, since a
//     wait of seconds cannot cure it. Then a request larger than a per-minute limit, which no
//     wait makes fit. Then a per-minute window, which is a rate limit even when worded as a
//     quota (Gemini's "You exceeded your current quota" with a per-minute quota id), unless
//     the status is a client error (below).
//   - Overflow, spend, balance and billing, permission, key and model words name a cause
//     whatever the status: a 403 or 400 that says the credits ran out is a quota, not an auth
//     failure; a 400 or 404 that says the organisation is not verified is a permission, not a
//     bad request or a missing model.
//     A request sized beyond what the balance affords ("can only afford") is named before the
//     balance words it also uses; a cap the owner set ("usage limits") after them, since a
//     message that names both says the money ran out.
//   - What the request asks for that this server or model cannot do at all (an image to a model
//     without vision, a model its version cannot run) is final even as a 500.
//   - A typed exception a gateway or SDK names (LiteLLM's "litellm.RateLimitError"), or its own
//     words for an upstream that did not answer, outrank a client-error status it was sent with:
//     gateways lose the upstream's status and send a 400. With a server-error status the words
//     after it say more.
//   - Then the status: 401/403 auth, 402 quota, a 404 that names a model, function or
//     deployment is a missing model and any other is a wrong path, other 4xx a bad request. A
//     client error says the request itself is at fault; nothing after it can make it retryable.
//   - Then what is transient, words before status: a gateway that could not reach its upstream
//     (a server error, even as a 503), overload ("Model busy" sent as a 429 is overload, not
//     the account's limit), rate-limit words, and last the status alone.
var responseRules = []rule{
	{"filter.moderation", chat.ContentFilter, says(moderation)},
	{"quota.limit-zero", chat.QuotaExhausted, says(limitZero)},
	{"quota.window", chat.QuotaExhausted, says(longWindow)},
	{"request.too-large", chat.BadRequest, func(s *signals) bool { return says(tooLarge)(s) || requestExceedsLimit(s.pe.text) }},
	{"rate.window", chat.RateLimited, transient(says(shortWindow))},
	{"rate.concurrency", chat.RateLimited, transient(says(concurrency))},
	{"overflow.words", chat.ContextOverflow, func(s *signals) bool {
		return says(overflow)(s) || s.status != 429 && says(manyTokens)(s)
	}},
	{"spend.afford", chat.SpendLimitExceeded, says(affordWords)},
	{"quota.words", chat.QuotaExhausted, says(quotaWords)},
	{"spend.limit", chat.SpendLimitExceeded, func(s *signals) bool { return says(spendWords)(s) && !says(tryLater)(s) }},
	// A 401 is who the caller is, whatever it says ("Access denied due to invalid subscription
	// key"): only an accepted key can lack a permission.
	{rulePermission, chat.AuthFailed, func(s *signals) bool { return s.status != 401 && says(permissionWords)(s) }},
	{"auth.words", chat.AuthFailed, says(authWords)},
	{"request.unsupported", chat.BadRequest, says(unsupported)},
	{"model.not-found", chat.ModelNotFound, says(modelMissing)},
	{"status.auth", chat.AuthFailed, statusIn(401, 403)},
	{"status.payment", chat.QuotaExhausted, statusIn(402)},
	{"status.not-found-model", chat.ModelNotFound, func(s *signals) bool { return s.status == 404 && says(modelNamed)(s) }},
	{"rate.exception", chat.RateLimited, lostStatus(says(rateException))},
	{"overloaded.exception", chat.Overloaded, lostStatus(says(overloadException))},
	{"server.exception", chat.ServerError, lostStatus(says(serverException))},
	{"server.upstream-lost-status", chat.ServerError, lostStatus(says(upstreamFailed))},
	{"status.client", chat.BadRequest, (*signals).clientFault},
	{"server.upstream-unreachable", chat.ServerError, says(unreachable)},
	{"network.words", chat.Network, says(networkWords)},
	{"overloaded.words", chat.Overloaded, says(overloadWords)},
	{"rate.words", chat.RateLimited, says(rateWords)},
	{"status.rate", chat.RateLimited, statusIn(429)},
	{"status.overloaded", chat.Overloaded, statusIn(503, 529)},
	{"status.timeout", chat.Timeout, statusIn(408)},
	{"status.unsupported", chat.BadRequest, statusIn(501, 505)}, // the endpoint cannot do this at all
	{"status.server", chat.ServerError, func(s *signals) bool { return s.status >= 500 || s.status == 409 }},
	// A status parley does not know to be transient.
	{"status.other", chat.BadRequest, func(s *signals) bool { return s.f.Phase == Status && s.f.Status >= 300 }},
	// An error frame, or an error in a 2xx body, that says nothing more: the request was
	// accepted, so the fault is the server's.
	{"stream.error", chat.ServerError, always},
}

// noResponseRules classify a failure without a provider's answer to read: what the agent saw
// of the stream (its hint comes first, since it may end a timed-out attempt by cancelling it),
// then the operator's cancel, then the error value, most specific first, and last its text,
// which is all a recorded error may have left.
var noResponseRules = []rule{
	{"stream.timeout-headers", chat.Timeout, kind(NetTimeoutHeaders)},
	{"stream.timeout-first-delta", chat.Timeout, kind(NetTimeoutFirstDelta)},
	{"stream.cut", chat.Network, kind(NetCut)},
	{"stream.empty", chat.EmptyResponse, kind(NetEmpty)},
	{"stream.idle", chat.Timeout, kind(NetStreamIdle)},
	{"stream.unreadable", chat.BadRequest, kind(NetUnreadable)},
	{"cancelled", chat.Cancelled, errIs(context.Canceled)},
	{"net.deadline", chat.Timeout, errIs(context.DeadlineExceeded)},
	// The connection was never set up, like a refusal.
	{"net.tls-handshake", chat.Network, errSays("tls handshake timeout")},
	// The proxy between, before what lies behind it: a proxy host that does not exist is no
	// fault of the base URL.
	{RuleProxyDenied, chat.Network, proxyAnswered(true)},
	{"net.proxy-answer", chat.Network, proxyAnswered(false)},
	{RuleProxyUnknownHost, chat.Network, func(s *signals) bool { return viaProxy(s.f.Err) && unknownHost(s) }},
	{RuleTLSExpired, chat.Network, certificateInvalid(x509.Expired, "certificate has expired or is not yet valid")},
	{RuleTLSHost, chat.Network, func(s *signals) bool {
		var host x509.HostnameError
		return errors.As(s.f.Err, &host) || errSays("certificate is valid for", "doesn't contain any ip sans",
			"certificate is not valid for any names")(s)
	}},
	{RuleTLSAuthority, chat.Network, func(s *signals) bool {
		var unknown x509.UnknownAuthorityError
		return errors.As(s.f.Err, &unknown) || errSays("certificate signed by unknown authority")(s)
	}},
	{"net.tls-certificate", chat.Network, untrustedCertificate},
	{RuleUnknownHost, chat.Network, unknownHost},
	{RuleDNS, chat.Network, func(s *signals) bool { var e *net.DNSError; return errors.As(s.f.Err, &e) }},
	{"net.dial", chat.Network, func(s *signals) bool { var e *net.OpError; return errors.As(s.f.Err, &e) && e.Op == "dial" }},
	{"net.timeout", chat.Timeout, func(s *signals) bool { var e net.Error; return errors.As(s.f.Err, &e) && e.Timeout() }},
	{"net.dropped", chat.Network, func(s *signals) bool {
		var op *net.OpError
		for _, target := range []error{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.EPIPE,
			io.EOF, io.ErrUnexpectedEOF} {
			if errors.Is(s.f.Err, target) {
				return true
			}
		}
		return errors.As(s.f.Err, &op)
	}},
	{"net.refused-words", chat.Network, errSays("connection refused", "connection reset", "broken pipe")},
	{"net.timeout-words", chat.Timeout, errSays("awaiting headers", "deadline exceeded", "timeout", "timed out")},
	{"net.other", chat.Network, func(s *signals) bool { return s.f.Err != nil || s.f.Phase == BeforeHeaders }},
	// A stream that failed without an error, a hint or an error frame.
	{"stream.failed", chat.ServerError, always},
}

// The rules of a network failure that tell its causes apart, so that its fix can fit
// (the agent's nameTheFix).
const (
	RuleProxyDenied      = "net.proxy-denied"
	RuleProxyUnknownHost = "net.proxy-unknown-host"
	RuleTLSExpired       = "net.tls-expired"
	RuleTLSHost          = "net.tls-host"
	RuleTLSAuthority     = "net.tls-authority"
	RuleUnknownHost      = "net.unknown-host"
	// RuleDNS is the resolver failing (no answer, a timeout, "server misbehaving"): the name
	// may well exist, and a retry may find it.
	RuleDNS = "net.dns"
)

// finalRules decide a class that is retryable elsewhere, but not when they decide it: no wait
// makes this machine trust a certificate, a host name exist, or a proxy let the request by.
var finalRules = map[string]bool{"net.tls-certificate": true, RuleTLSExpired: true, RuleTLSHost: true, RuleTLSAuthority: true,
	RuleUnknownHost: true, RuleProxyUnknownHost: true, RuleProxyDenied: true}

// ProxyAnswer is a proxy's refusal to open a tunnel to the endpoint (its answer to CONNECT),
// which net/http reports by its status text alone; the agent's transport reports this instead.
type ProxyAnswer struct {
	// Status is the proxy's status code; Text its status line ("407 Proxy Authentication
	// Required"); Target the host and port the tunnel was asked for.
	Status       int
	Text, Target string
}

func (e *ProxyAnswer) Error() string {
	return "the proxy refused a tunnel to " + e.Target + ": " + e.Text
}

// proxyAnswered matches a proxy's refusal of the tunnel: a denial (a password asked for, or the
// host forbidden), which no wait cures, when denied is set; else any other refusal (a proxy
// that could not reach the endpoint). A recorded error has only its text: net/http's own
// ("Proxy Authentication Required") or ProxyAnswer's.
func proxyAnswered(denied bool) func(*signals) bool {
	return func(s *signals) bool {
		var pa *ProxyAnswer
		if !errors.As(s.f.Err, &pa) {
			return denied && errSays("proxy authentication required", "the proxy refused a tunnel to")(s) &&
				!errSays("bad gateway", "service unavailable", "gateway timeout")(s)
		}
		return denied == (pa.Status == 407 || pa.Status == 403)
	}
}

// viaProxy reports whether err is a failure to reach the proxy itself.
func viaProxy(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "proxyconnect"
}

// certificateInvalid matches a certificate Go rejected for reason, or a recorded error that
// says words.
func certificateInvalid(reason x509.InvalidReason, words string) func(*signals) bool {
	return func(s *signals) bool {
		var invalid x509.CertificateInvalidError
		if errors.As(s.f.Err, &invalid) {
			return invalid.Reason == reason
		}
		return errSays(words)(s)
	}
}

// untrustedCertificate matches a certificate that failed verification: signed by an authority
// this machine does not trust, expired, or for another name. A recorded error has only its text.
func untrustedCertificate(s *signals) bool {
	var unknown x509.UnknownAuthorityError
	var invalid x509.CertificateInvalidError
	var host x509.HostnameError
	var verify *tls.CertificateVerificationError
	if errors.As(s.f.Err, &unknown) || errors.As(s.f.Err, &invalid) || errors.As(s.f.Err, &host) || errors.As(s.f.Err, &verify) {
		return true
	}
	return errSays("x509:", "tls: failed to verify certificate")(s)
}

// unknownHost matches a host name the resolver says does not exist; a resolver that failed
// for a while (no network, a server misbehaving, a timeout) is left to net.dns, which retries.
func unknownHost(s *signals) bool {
	var e *net.DNSError
	if errors.As(s.f.Err, &e) {
		return e.IsNotFound && !e.IsTemporary && !e.IsTimeout
	}
	return errSays("no such host")(s)
}

// re compiles a pattern that matches lower-cased text.
func re(alternatives ...string) *regexp.Regexp {
	return regexp.MustCompile(strings.Join(alternatives, "|"))
}

var (
	moderation = re(`content[_ ]filter`, `content[_ ]polic`, `content management policy`, `responsibleaipolicyviolation`,
		`data_inspection_failed`, `inappropriate content`, `sensitive content`, `敏感`, `invalid_prompt`,
		`(?:violat\w*|flagged)\b.{0,60}?\b(?:usage|safety|acceptable use) polic`, `hooks_failed`, `guardrail`, `moderation`,
		// refusals given only as a reason code: Google's block reasons and finish reasons, Flow's
		// UNSAFE_GENERATION, and the words relays wrap them in ("blocked due to SAFETY")
		`blockedreason`, `prohibited[_ ]content`, `unsafe[_ ]generation`,
		`\bblocked\b(?: \w+){0,2} (?:due to|for reason:?|because of) (?:safety|recitation|prohibited|blocklist|spii|image_safety)`)

	// limitZero is a limit of nothing at all: the plan has no allowance for this model.
	limitZero = re(`\blimit:?\s*0(?:[^\d.]|$)`)
	// longWindow is a limit counted over hours or days. Google's quota ids run the words
	// together ("GenerateRequestsPerDayPerProjectPerModel"); gateways put them in identifiers
	// ("limit_rpd/…"), where an underscore is a separator.
	longWindow = re(`(?:per|/)[ _-]?(?:day|week|month)`, `\b(?:daily|weekly|monthly)\b`, `\b(?:for |in )?(?:this|the|each|every) (?:day|week|month)\b`, `(?:^|[^a-z])(?:tpd|rpd)(?:[^a-z]|$)`,
		`(?:limit|quota|usage)\W+(?:\w+\W+){0,3}?\d+[ -]?hours?\b`, `\b\d+[ -]?hours? (?:limit|quota|window|usage)`)
	tooLarge = re(`request too large`, `request entity too large`)
	// concurrency is a limit on requests in flight at once, which frees as they finish, however
	// it is worded ("concurrency quota exceeded").
	concurrency = re(`concurren(?:cy|t)`, `parallel requests`, `simultaneous requests`, `requests? in[- ]flight`)
	// shortWindow is a limit counted per minute or second.
	shortWindow = re(`per[ _-]?(?:minute|second|min\b|sec\b)`, `(?:^|[^a-z])(?:tpm|rpm|tps|rps)(?:[^a-z]|$)`)

	overflow = re(`context_length_exceeded`, `exceed_context_size`, `max_prompt_tokens_exceeded`,
		`maximum prompt length is \d+`, `\b(?:prompt|input)(?: token)? (?:count|length|size)\b.{0,30}?\bexceeds?\b`,
		`context[ _-]?(?:length|window|size|limit)\W+(?:\w+\W+){0,6}?(?:exceed|overflow|too|only|not enough)`,
		`(?:exceed\w*|overflows?|longer than|larger than|greater than|beyond)\W+(?:\w+\W+){0,4}?context\b`,
		`maximum context`, `context (?:length|window) (?:is|of) \d+`,
		// "too long" only of what was sent: "the request took too long" is a timeout
		`\b(?:prompt|input|message|request|text|content|conversation|sequence)s?(?: \w+){0,2} (?:is|are|was|were) too long`,
		`\b(?:prompt|input|message|conversation|sequence)s? too long`,
		`longer than.{0,40}?\b(?:tokens?|context|length)\b`,
		`tokens?\W.{0,60}?must be <=\s*\d+`, `must have less than \d+ tokens`, `range of input length`,
		// a max_tokens the server derived from what is left of the context (parley never sends 0)
		`max_(?:new_)?tokens\W*must be at least 1\b`,
		`keep the first \d+ tokens`, `\bonly \d+ tokens`,
		`exceed\w*\s+(?:the\s+)?(?:model'?s?\s+)?(?:maximum|max)\b.{0,40}?\b(?:tokens?|length|context)\b`,
		`\b(?:tokens?|length)\b.{0,40}?\bexceed\w*\s+(?:the\s+)?(?:maximum|max)\b`,
		`exceed\w*.{0,20}?\btoken limit\b`, `\btoken limit exceeded`)
	// manyTokens is an overflow, except as a 429, where it is a rate limit without its window.
	manyTokens = re(`too many (?:input |prompt )?tokens`)

	// affordWords are a request sized beyond what the balance can pay for; a smaller one would go.
	affordWords = re(`can only afford`, `fewer max_tokens`)
	// quotaWords are a balance, credit, budget, billing, plan or spending-limit state that stops
	// every request, and a quota Google names without a per-minute window.
	quotaWords = re(`insufficient[_ ]quota`,
		// the account's own allowance, used up: "exhausted your capacity", "reached your session usage limit"
		`\b(?:exhausted|used up|reached|exceeded|hit) your (?:\w+ ){0,2}?(?:quota|capacity|allowance|usage limit)\b`, `exceeded[_ ](?:\w+[_ ]){0,2}?quota`, `quota[_ ](?:has been |was )?(?:exceeded|exhausted|used up)`,
		`quotafailure`, `\bbalance\b`, `\bcredits?\b`, `\bfunds\b`, `\bbilling\b`, `spend(?:ing)? limit`,
		`(?:check|upgrade) your plan`,
		// a plan's entitlement, worded as a rate limit: "Extra usage is required for long context requests"
		`\b(?:extra|additional) usage is required`, `\brequires? (?:extra|additional) usage\b`,
		// a trial's or a free tier's allowance, however it is named
		`\b(?:trial|free[ _-]?tier|free plan)\b(?: \w+){0,3}? (?:limit|cap|allowance|usage)\b`, `\bplan\W+(?:\w+\W+){0,3}?(?:limit|quota)\W+(?:\w+\W+){0,2}?(?:reached|exceeded|exhausted)`,
		`arrear`, `overdue`, `payment required`, `budget[_ ](?:has been )?exceeded`, `exceeded (?:the |your )?budget`,
		`余额不足`, `欠费`)
	// moneyWords are a failure that only money or a plan change cures: no stated reset makes it a
	// wait. "Check your plan and billing details" is boilerplate some providers add to any
	// quota (Gemini's per-minute ones too), so plan and billing alone are not money.
	moneyWords = re(`insufficient[_ ]quota`, `insufficient[_ ](?:balance|credits?|funds)`, `\bbalance\b`, `\bcredits?\b`,
		`\bfunds\b`, `payment required`, `add (?:a )?payment`, `\btop[ -]?up\b`, `recharge`, `arrear`, `overdue`,
		`billing_hard_limit`, `not (?:available|included|supported) (?:on|in|for) (?:your|the) (?:current |free )?(?:plan|tier)`,
		`\b(?:extra|additional) usage is required`, `\brequires? (?:extra|additional) usage\b`,
		`upgrade (?:to|your)\b.{0,30}?\b(?:plan|tier|subscription) to (?:use|access)`, `余额不足`, `欠费`)
	// spendWords are a cap on spending the account's owner set; tryLater is a provider saying
	// its limit frees by itself, which no cap the owner must raise does.
	spendWords = re(`usage limits`, `billing_hard_limit`, `hard limit`)
	tryLater   = re(`\b(?:try|retry)(?: again)? later\b`, `\bwait (?:a (?:bit|moment|while)|and try again)\b`)
	authWords  = re(`authentication_error`, `invalid_api_key`, `api_key_invalid`, `api key not valid`,
		`incorrect api key`, `invalid (?:x-)?api[ _-]?key`, `unauthenticated`, `unauthorized`)
	// permissionWords are a key that was accepted but is not allowed this: an organisation not
	// verified, disabled or restricted, a use-case form not submitted, a model withdrawn for the
	// account or outside the project's, a location served nowhere. Providers send them as 400,
	// 403 or 404; none is cured by waiting or by another key.
	permissionWords = re(`permission_error`, `permission_denied`, `permissiondenied`,
		`organi[sz]ation must be verified`, `verify (?:your )?organi[sz]ation`, `organi[sz]ation_restricted`,
		`\b(?:organi[sz]ation|account|project|team|subscription)\b(?: \w+){0,2} (?:has been|is|was) (?:disabled|restricted|suspended|deactivated|banned)`,
		`does not have access to (?:the )?model`, `not authori[sz]ed to access`, `\baccess(?: to (?:the |this )?model)? (?:is )?denied`,
		`use[- ]case (?:details|form)`, `marked by (?:the )?provider as legacy`,
		// access refused for where the request comes from
		`unsupported_country`, `\b(?:location|region|country|territory)\b(?: \w+){0,3} (?:is |are )?not (?:supported|available|allowed)`)
	modelMissing = re(`model_not_found`, `deploymentnotfound`, `invalid_model`, `invalid model(?:[.:]| ['"\x60]| name| id)`,
		`no such model`, `unknown model`, `模型不存在`, `no endpoints found for`, `无可用渠道`, `no available channels? for`,
		`\b(?:models?|deployments?)\b.{0,80}?\b(?:not[ _]found|does not exist|doesn't exist|not exist)`)
	// unsupported is a request this server or model cannot serve whatever is retried: an image
	// to a model without vision, a model the server's version or build cannot run.
	unsupported = re(`image input is not supported`, `\brequired for image input`, `(?:does not|doesn't|do not|cannot) (?:support|accept|process) (?:the )?(?:images?|vision|image[_ ]url|multi-?modal)`,
		`image[_ ]url is only supported`, `(?:images?|vision|multi-?modal)(?: input)?(?: is| are)? not supported`,
		// tools sent to a server or model that cannot take them
		`unsupported param(?:eter)?s?:?\s+(?:tools|tool_choice|functions)\b`, `\btools? param(?:eter)? requires --`,
		`(?:does not|doesn't|do not) support (?:tools|tool[_ ]?(?:calls?|calling|use)|function[_ ]?calling)`,
		`\b(?:tools|tool calling|tool use|function calling) (?:is |are )?not (?:yet )?supported`,
		`unknown model architecture`, `unsupported model (?:architecture|type|format)`,
		`not supported by (?:this|your|the current|the installed) (?:version|build|server|runtime)`,
		`requires a newer version`, `binary not found`, `invalid model file`)
	// rateException, overloadException and serverException are the typed exceptions of the
	// OpenAI SDKs and LiteLLM, named in the text a gateway passes on.
	rateException     = re(`ratelimiterror`)
	overloadException = re(`serviceunavailableerror`)
	serverException   = re(`internalservererror`, `apiconnectionerror`, `apitimeouterror`)
	// upstreamFailed is a gateway's own words for an upstream that did not answer, which it may
	// send as a 400 (Cloudflare AI Gateway's code 2005).
	upstreamFailed = re(`failed to get (?:a )?response from (?:the )?(?:provider|upstream|model)`,
		`\b(?:provider|upstream)(?: server)? (?:did not|didn't|failed to) (?:respond|answer)`,
		`no response from (?:the )?(?:provider|upstream)`, `upstream request failed`)
	// modelNamed: NVIDIA's NIM serves each model as a "function", Azure as a "deployment".
	modelNamed = re(`\b(?:models?|deployments?|functions?)\b`)

	// unreachable is a gateway or server saying it could not reach the one behind it (gRPC's
	// "code = Unavailable" is a backend that is down, not one that is full).
	unreachable = re(`fetch failed`, `upstream connect error`, `no healthy upstream`, `connection refused`, `code = unavailable`,
		`connection reset`, `error while dialing`, `econnrefused`, `econnreset`, `failed to connect`, `could not connect`)
	// networkWords are a provider saying the network between it and its upstream failed.
	networkWords  = re(`network (?:connection )?(?:lost|error|failure)`, `connection (?:was )?lost`)
	overloadWords = re(`overload`, `\bbusy\b`, `capacity`, `no more data centers`, `loading model`, `model is loading`,
		`unavailable`, `访问量过大`, `繁忙`,
		// the server's own limit, not the account's: "Worker local total request limit reached (33/32)"
		`\b(?:worker|server|replica|instance|node|engine|backend)s?\b.{0,40}?\blimit reached`)
	rateWords = re(`rate[ _-]?limit`, `too many requests`, `throttl`, `resource_exhausted`, `resource has been exhausted`,
		`速率限制`, `频率`)

	// limitRequested reads "Limit 30000, … Requested 36536" from a per-minute limit message.
	limitRequested = regexp.MustCompile(`\blimit (\d+),.*?\brequested ~?(\d+)`)
)

// says matches when the provider's words, lower-cased, match p.
func says(p *regexp.Regexp) func(*signals) bool {
	return func(s *signals) bool { return p.MatchString(s.pe.text) }
}

// transient matches what m does, unless the status says the request itself is at fault. Only
// a rule ordered before status.client needs it: that rule takes every client fault, so none
// reaches the rules after it.
func transient(m func(*signals) bool) func(*signals) bool {
	return func(s *signals) bool { return !s.clientFault() && m(s) }
}

// lostStatus matches what m does when the status is a client fault: for a transient failure a
// gateway passed on with the wrong status.
func lostStatus(m func(*signals) bool) func(*signals) bool {
	return func(s *signals) bool { return s.clientFault() && m(s) }
}

func statusIn(codes ...int) func(*signals) bool {
	return func(s *signals) bool {
		for _, c := range codes {
			if s.status == c {
				return true
			}
		}
		return false
	}
}

func kind(k NetKind) func(*signals) bool {
	return func(s *signals) bool { return s.f.Kind == k }
}

func errIs(target error) func(*signals) bool {
	return func(s *signals) bool { return errors.Is(s.f.Err, target) }
}

// errSays matches an error whose text holds any of marks.
func errSays(marks ...string) func(*signals) bool {
	return func(s *signals) bool {
		if s.f.Err == nil {
			return false
		}
		text := strings.ToLower(s.f.Err.Error())
		for _, m := range marks {
			if strings.Contains(text, m) {
				return true
			}
		}
		return false
	}
}

func always(*signals) bool { return true }

// clientFault reports whether the status is a client error other than 408, 409 and 429: the
// request itself is at fault, and sending it again cannot succeed.
func (s *signals) clientFault() bool {
	return s.status >= 400 && s.status < 500 && s.status != 408 && s.status != 409 && s.status != 429
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
