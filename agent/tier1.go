package agent

import "parley/retry"

// silentResends is how many times Tier 1 sends again a request whose 2xx stayed silent until
// the first-delta deadline: once, since each may be billed; never for a reasoning model, whose
// silence is thinking (its wait is shown instead).
const silentResends = 1

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
