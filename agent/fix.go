package agent

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"parley/internal/chat"
	"parley/retry"
)

// nameTheFix is the failure a run ends with (retry.Final's), reworded when the endpoint's
// settings are the likely cause so that it says what to change: nothing listening on this
// machine, a 404 at the chat path (the base URL), tools sent to an endpoint that cannot take
// them (how to turn them off, or on there), and an authentication failure when no key was sent
// (the variable to set). url is the address the request went to.
func (c *Client) nameTheFix(cls chat.Classification, f retry.Failure, url string) chat.Classification {
	cls = retry.Final(cls, f)
	said := cls.Message
	switch {
	case cls.Class == chat.Network:
		return c.networkFix(cls, f)
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
	case cls.Class == chat.AuthFailed && cls.Label != retry.PermissionLabel && c.ep.APIKey == "":
		env := c.ep.KeyEnv
		if env == "" {
			env = "OPENAI_API_KEY"
		}
		cls.Message = fmt.Sprintf("%s: no API key was sent; set %s to the server's key (--api-key-env names another variable)",
			strings.TrimRight(said, "."), env)
	}
	return cls
}

// toolsFix is the fix for tools sent to an endpoint that cannot take them: the same request
// fails every time.
const toolsFix = "this endpoint takes no tools: turn them off (/tools off; in print mode, no --allow-tool and no tools " +
	"in the profile), choose a model that takes them (/model), or start llama-server with --jinja"

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

// networkFix names the fix for a network failure the operator's setup causes: nothing listening
// on this machine, a proxy that refused (its variable), a certificate this machine does not
// trust (the variables that name more authorities), a host name that does not exist.
func (c *Client) networkFix(cls chat.Classification, f retry.Failure) chat.Classification {
	op, proxy := retry.ProxyRefused(f)
	switch {
	case proxy:
		cls.Message = fmt.Sprintf("the proxy at %s refused the connection (%v): check HTTPS_PROXY / HTTP_PROXY (or NO_PROXY for this host)",
			op.Addr, op.Err)
	case cls.Rule == "net.tls-certificate":
		cls.Message = fmt.Sprintf("%s: the endpoint's certificate is not trusted here. If a private CA or a proxy signs it, "+
			"point SSL_CERT_FILE (or SSL_CERT_DIR) at its certificate; otherwise check the base URL", cls.Message)
	case cls.Rule == "net.unknown-host":
		cls.Message = fmt.Sprintf("%s: no such host; check the host name in the base URL (%s)", cls.Message, c.where())
	default:
		addr, ok := retry.RefusedHere(f)
		if !ok {
			return cls
		}
		cls.Message = fmt.Sprintf("nothing is listening on %s (connection refused): is the server running? Start it, then try again", addr)
	}
	return cls
}
