package agent

import (
	"cmp"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	neturl "net/url"
	"regexp"
	"strings"
	"syscall"
	"time"

	"parley/internal/chat"
	"parley/retry"
)

// nameTheFix is the failure a run ends with (retry.Final's), reworded when the endpoint's
// settings are the likely cause so that it says what to change: nothing listening on this
// machine, a 404 at the chat path (the base URL), tools sent to an endpoint that cannot take
// them (how to turn them off, or on there), and an authentication failure: with no key sent,
// the variable to set; with a key the server rejected, the variable that held it (never the
// key). url is the address the request went to.
func (c *Client) nameTheFix(cls chat.Classification, f retry.Failure, url string) chat.Classification {
	cls = retry.Final(cls, f)
	said := cls.Message
	switch {
	case cls.Class == chat.Network:
		return c.networkFix(cls, f, url)
	case f.Phase == retry.Status && f.Status >= 300 && f.Status < 400:
		if loc := f.Header.Get("Location"); loc != "" {
			cls.Message = fmt.Sprintf("the endpoint redirects to %s (HTTP %d): use that as the base URL; parley does not follow a redirect with your key",
				chat.RedactURL(loc), f.Status)
		}
	case cls.Rule == "request.unsupported" && len(c.tools) > 0 && toolWords.MatchString(said):
		cls.Message = strings.TrimRight(said, ". ") + ": " + toolsFix
	case cls.Class == chat.BadRequest && f.Phase == retry.Status && f.Status == http.StatusNotFound:
		if said == "" {
			said = "HTTP 404 Not Found"
		}
		cls.Message = fmt.Sprintf("%s at %s: ", said, url)
		if suggested := baseURLWithV1(c.where()); suggested != strings.TrimRight(c.where(), "/") {
			cls.Message += "the base URL should end in /v1: use " + suggested
		} else {
			cls.Message += "no chat endpoint there: check the base URL"
		}
	case cls.Class == chat.AuthFailed && cls.Label != retry.PermissionLabel && c.ep.APIKey != "" && f.Phase == retry.Status:
		cls.Message = fmt.Sprintf("%s: the server rejected the key in %s; check its value, or name another variable with --api-key-env",
			strings.TrimRight(said, ". "), c.keyEnv())
	case cls.Class == chat.AuthFailed && cls.Label != retry.PermissionLabel && c.ep.APIKey == "":
		cls.Message = fmt.Sprintf("%s: no API key was sent; set %s to the server's key (--api-key-env names another variable)",
			strings.TrimRight(said, "."), c.keyEnv())
	}
	return cls
}

// keyEnv is the variable the endpoint's key is read from.
func (c *Client) keyEnv() string { return cmp.Or(c.ep.KeyEnv, "OPENAI_API_KEY") }

// toolsFix is the fix for tools sent to an endpoint that cannot take them: the same request
// fails every time.
const toolsFix = "this endpoint takes no tools: turn them off (/tools off; in print mode, no --allow-tool and no tools " +
	"in the profile), choose a model that takes them (/model; in print mode, --model NAME), or start llama-server with --jinja"

// toolWords are how refusals of tools name them.
var toolWords = regexp.MustCompile(`(?i)\btools?\b|tool_choice|function[_ ]?calling`)

// baseURLWithV1 is base as an OpenAI-compatible base URL: without the /chat/completions an
// operator may have copied with it, ending in /v1.
func baseURLWithV1(base string) string {
	b := strings.TrimRight(base, "/")
	b = strings.TrimRight(strings.TrimSuffix(b, "/chat/completions"), "/")
	if !strings.HasSuffix(b, "/v1") {
		b += "/v1"
	}
	return b
}

// networkFix names the fix for a network failure by its cause, each said once: nothing
// listening on this machine; the proxy (its address and the variable that named it) refusing,
// not existing or denying the tunnel; a certificate expired (its date), for another host (the
// hosts it is for) or from an authority this machine does not trust (and a certificate file
// or directory that is named but cannot be read); a host name that does not exist, or DNS
// itself failing. url is the address the request went to.
func (c *Client) networkFix(cls chat.Classification, f retry.Failure, url string) chat.Classification {
	u, _ := neturl.Parse(url)
	if u == nil || u.Host == "" {
		u, _ = neturl.Parse(c.where()) // a failure before the request had its address
	}
	if u == nil {
		u = &neturl.URL{}
	}
	if said, ok := c.proxyFix(cls, f, u); ok {
		cls.Message = said
		return cls
	}
	var dns *net.DNSError
	errors.As(f.Err, &dns)
	switch cls.Rule {
	case retry.RuleTLSExpired:
		// TLS judged the certificate by the wall clock, not the client's.
		cls.Message = expiredFix(f.Err, u.Host, time.Now())
	case retry.RuleTLSHost:
		cls.Message = otherHostFix(f.Err, u)
	case retry.RuleTLSAuthority, "net.tls-certificate":
		cls.Message = authorityFix(f.Err, u.Host, c.ep.Network.certTrouble())
	case retry.RuleUnknownHost:
		cls.Message = fmt.Sprintf("%s: check the host name in the base URL (%s)", noSuchHost(dns, u.Hostname()), chat.RedactURL(c.where()))
	case retry.RuleDNS:
		cls.Message = fmt.Sprintf("%s: check this machine's network and its DNS resolver; the host name may be right",
			dnsFailed(dns, u.Hostname()))
	default:
		addr, ok := retry.RefusedHere(f)
		if !ok {
			return cls
		}
		cls.Message = fmt.Sprintf("nothing is listening on %s (connection refused): is the server running? Start it, then try again", addr)
	}
	return cls
}

// proxyFix is the fix for a failure of the proxy a request to u went through, when it is one.
func (c *Client) proxyFix(cls chat.Classification, f retry.Failure, u *neturl.URL) (string, bool) {
	proxy, variable, _ := c.ep.Network.proxyFor(u)
	var answer *retry.ProxyAnswer
	_, toProxy := retry.ProxyRefused(f)
	if proxy == nil || !toProxy && !errors.As(f.Err, &answer) {
		return "", false
	}
	at := fmt.Sprintf("the proxy at %s (%s)", chat.RedactURL(proxy.String()), variable)
	direct := fmt.Sprintf("NO_PROXY=%s connects to this host directly", u.Hostname())
	var dns *net.DNSError
	switch {
	case answer != nil && answer.Status == http.StatusProxyAuthRequired && proxy.User != nil:
		return fmt.Sprintf("%s refused its user and password (%s): correct them in %s", at, answer.Text, variable), true
	case answer != nil && answer.Status == http.StatusProxyAuthRequired:
		return fmt.Sprintf("%s asks for a password (%s): put it in %s as %s://USER:PASSWORD@%s", at, answer.Text, variable,
			proxy.Scheme, proxy.Host), true
	case answer != nil && answer.Status == http.StatusForbidden:
		return fmt.Sprintf("%s does not let this machine reach %s (%s): ask its administrator, or %s", at, answer.Target, answer.Text, direct), true
	case answer != nil:
		return fmt.Sprintf("%s could not reach %s (%s)", at, answer.Target, answer.Text), true
	case cls.Rule == retry.RuleProxyUnknownHost && errors.As(f.Err, &dns):
		return fmt.Sprintf("%s: %s: correct %s, or unset it to connect directly", at, noSuchHost(dns, proxy.Hostname()), variable), true
	case errors.Is(f.Err, syscall.ECONNREFUSED):
		return fmt.Sprintf("%s refused the connection: start the proxy or correct %s, or %s", at, variable, direct), true
	}
	var op *net.OpError
	errors.As(f.Err, &op)
	return fmt.Sprintf("%s failed: %v", at, op.Err), true
}

// expiredFix words a certificate outside its validity: expired, or not valid yet (which a
// machine's clock set wrong also causes).
func expiredFix(err error, host string, now time.Time) string {
	var invalid x509.CertificateInvalidError
	if !errors.As(err, &invalid) || invalid.Cert == nil {
		return fmt.Sprintf("the certificate of %s has expired or is not valid yet: the server's operator must renew it, "+
			"or this machine's clock is wrong", host)
	}
	today := now.UTC().Format(time.DateOnly)
	if cert := invalid.Cert; now.Before(cert.NotBefore) {
		return fmt.Sprintf("the certificate of %s is not valid before %s (today is %s here): check this machine's clock",
			host, cert.NotBefore.UTC().Format(time.DateOnly), today)
	}
	return fmt.Sprintf("the certificate of %s expired on %s (today is %s here): the server's operator must renew it, "+
		"unless this machine's clock is wrong", host, invalid.Cert.NotAfter.UTC().Format(time.DateOnly), today)
}

// otherHostFix words a certificate for other hosts than the base URL names: which hosts it is
// for, so that the base URL can use one.
func otherHostFix(err error, u *neturl.URL) string {
	var hostErr x509.HostnameError
	if !errors.As(err, &hostErr) || hostErr.Certificate == nil {
		return fmt.Sprintf("the certificate of %s is for another host: use the host name it is for in the base URL", u.Host)
	}
	cert := hostErr.Certificate
	names := append([]string{}, cert.DNSNames...)
	for _, ip := range cert.IPAddresses {
		names = append(names, ip.String())
	}
	if len(names) == 0 && cert.Subject.CommonName != "" {
		names = []string{cert.Subject.CommonName}
	}
	if len(names) == 0 {
		return fmt.Sprintf("the certificate of %s names no host at all: the server's operator must replace it", u.Host)
	}
	const shown = 5
	listed := strings.Join(names[:min(len(names), shown)], ", ")
	if len(names) > shown {
		listed += fmt.Sprintf(" and %d more", len(names)-shown)
	}
	return fmt.Sprintf("the certificate of %s is for %s, not %s: use one of those in the base URL", u.Host, listed, u.Hostname())
}

// authorityFix words a certificate this machine does not trust: which authority signed it, and
// how to trust it; first of all, that the certificate file or directory named cannot be read
// (trouble, from Network.certTrouble).
func authorityFix(err error, host, trouble string) string {
	signer := "an authority"
	var unknown x509.UnknownAuthorityError
	if errors.As(err, &unknown) && unknown.Cert != nil && unknown.Cert.Issuer.CommonName != "" {
		signer = fmt.Sprintf("%q, an authority", unknown.Cert.Issuer.CommonName)
	}
	said := fmt.Sprintf("the certificate of %s is signed by %s this machine does not trust", host, signer)
	if trouble != "" {
		return said + ": " + trouble + "; point it at that authority's certificate"
	}
	return said + ": if a private CA or a proxy signs it, point SSL_CERT_FILE (or SSL_CERT_DIR) at that authority's certificate"
}

// noSuchHost says that DNS knows no host name.
func noSuchHost(dns *net.DNSError, name string) string {
	if dns != nil && dns.Name != "" {
		name = dns.Name
	}
	return fmt.Sprintf("there is no host %s (DNS knows none)", name)
}

// dnsFailed says that looking a host name up failed, not that the name does not exist.
func dnsFailed(dns *net.DNSError, name string) string {
	if dns == nil {
		return "DNS failed looking up " + name
	}
	how := dns.Err
	if dns.IsTimeout {
		how = "no answer in time"
	}
	return fmt.Sprintf("DNS failed looking up %s (%s)", cmp.Or(dns.Name, name), how)
}
