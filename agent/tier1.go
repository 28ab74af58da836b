package agent

import (
	"fmt"

	"parley/retry"
)

// silentResends is how many times Tier 1 sends again a request whose 2xx stayed silent until
// the first-delta deadline: once, since each may be billed; never for a reasoning model, whose
// silence is thinking (its wait is shown instead).
const silentResends = 1

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
