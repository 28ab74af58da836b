package agent

import (
	"fmt"
	"net/http"
	"strings"

	"parley/retry"
)

// silentResends is how many times Tier 1 sends again a request whose 2xx stayed silent until
// the first-delta deadline: once, since each may be billed; never for a reasoning model, whose
// silence is thinking (its wait is shown instead).
const silentResends = 1

// gatewayRetries is how many times the gateway retried before it answered with headers h
// (retry.GatewayRetries): when it says only that its retries are spent, as many as the config
// parley sent it asked for.
func (c *Client) gatewayRetries(h http.Header) int {
	g := retry.GatewayRetries(h)
	if g >= 0 {
		return g
	}
	for name, value := range c.ep.Headers {
		if n := retry.ConfiguredRetries(value); strings.EqualFold(name, "x-portkey-config") && n > 0 {
			return n
		}
	}
	return g
}

// gatewaySaid is what a failure says first when a gateway retried before it answered: the
// requests behind one attempt (`Provider overloaded — gateway retried 3× · …`).
func gatewaySaid(retries int) string {
	switch {
	case retries > 0:
		return fmt.Sprintf("gateway retried %d× · ", retries)
	case retries < 0:
		return "gateway retried until its retries were spent · "
	}
	return ""
}

// mayRetry reports whether Tier 1 may send again after attempt failed with f, where its policy
// allows: not when a gateway says it retried already (retries would stack), and a silent 2xx
// only silentResends times, never for a reasoning model.
func (c *Client) mayRetry(f retry.Failure, attempt int) bool {
	if retry.GatewayRetried(f.Header) {
		return false
	}
	if f.Kind == retry.NetTimeoutFirstDelta && f.Phase != retry.BeforeHeaders {
		return !c.ep.reasoning() && attempt <= silentResends
	}
	return true
}
