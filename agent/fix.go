package agent

import (
	"fmt"
	"net/http"
	"strings"

	"parley/internal/chat"
	"parley/retry"
)

// nameTheFix rewords the failure a run ends with when the endpoint's settings are the likely
// cause, so that it says what to change: nothing listening on this machine (not retried by
// Tier 2: only the operator can start the server), a 404 at the chat path (the base URL), and
// an authentication failure when no key was sent (the variable to set). url is the address
// the request went to.
func (c *Client) nameTheFix(cls chat.Classification, f retry.Failure, url string) chat.Classification {
	said := cls.Message
	switch {
	case cls.Class == chat.Network:
		addr, ok := retry.RefusedHere(f)
		if !ok {
			return cls
		}
		cls.Retryable = false
		cls.Message = fmt.Sprintf("nothing is listening on %s (connection refused): is the server running? Start it, then send again", addr)
	case cls.Class == chat.BadRequest && f.Phase == retry.Status && f.Status == http.StatusNotFound:
		if said == "" {
			said = "HTTP 404 Not Found"
		}
		cls.Message = fmt.Sprintf("%s at %s: ", said, url)
		if suggested := baseURLWithV1(c.ep.BaseURL); suggested != strings.TrimRight(c.ep.BaseURL, "/") {
			cls.Message += "the base URL should end in /v1: use " + suggested
		} else {
			cls.Message += "no chat endpoint there: check the base URL"
		}
	case cls.Class == chat.AuthFailed && c.ep.APIKey == "":
		env := c.ep.KeyEnv
		if env == "" {
			env = "OPENAI_API_KEY"
		}
		cls.Message = fmt.Sprintf("%s: no API key was sent; set %s to the server's key (--api-key-env names another variable)",
			strings.TrimRight(said, "."), env)
	}
	return cls
}

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
