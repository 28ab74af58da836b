package printmode

import (
	"time"

	"parley/internal/chat"
	"parley/internal/sanitize"
)

// result is print mode's --json object.
type result struct {
	SessionID string `json:"session_id"`
	RunID     int64  `json:"run_id"`
	// Status and Retry are the last run's; Attempts counts the requests of every run.
	Status   chat.Status `json:"status"`
	Text     string      `json:"text"`
	Attempts int         `json:"attempts"`
	// GatewayAttempts counts the upstream requests a gateway says it made for the last
	// request it failed (its retries and the first); 0 when none said.
	GatewayAttempts int                  `json:"gateway_attempts,omitempty"`
	Error           *string              `json:"error"`
	Retry           *chat.Classification `json:"retry"`
	// Reasoning is the thinking the model streamed before its answer; FinishReason why the
	// reply ended ("length": at the token limit).
	Reasoning    string `json:"reasoning"`
	FinishReason string `json:"finish_reason"`
	// Model is the model that answered, as the endpoint named it; RequestedModel the one asked
	// for, given when they differ.
	Model          string `json:"model"`
	RequestedModel string `json:"requested_model,omitempty"`
	Endpoint       string `json:"endpoint"`
	Demo           bool   `json:"demo"`
	// Usage sums every run's; CostUSD prices it, 0 for a model without a price.
	Usage   chat.Usage `json:"usage"`
	CostUSD float64    `json:"cost_usd"`
	// OmittedMessages counts the earlier messages left out to fit the model's context.
	OmittedMessages int `json:"omitted_messages"`
	// Stored is false when the history could not store the run in full; NotStored then says
	// why, and where its text is kept.
	Stored    bool   `json:"stored"`
	NotStored string `json:"not_stored,omitempty"`
	// ToolCalls are the tool calls the run made, in order, with what became of each.
	ToolCalls []toolCallJSON `json:"tool_calls"`
}

// runOutput is what one run printed, beyond result: for deciding what comes next.
type runOutput struct {
	result
	// gotOutput is set once answer or thinking arrived: nothing may then be sent again.
	gotOutput bool
	// heldSince is set when the run sent nothing because endpoint memory held it back: the
	// provider said so then.
	heldSince time.Time
}

// exitStatus is the exit status for a run's outcome: whether it succeeded, was interrupted,
// or failed in a way that trying again can or cannot help.
func exitStatus(o chat.Outcome) int {
	switch {
	case o.Status == chat.StatusSucceeded:
		return chat.ExitOK
	case o.Status == chat.StatusCancelled:
		return chat.ExitInterrupted
	case o.Retry != nil && o.Retry.Retryable:
		return chat.ExitRetryable
	}
	return chat.ExitFailed
}

// errorLine is the --json error, and the stderr line, of a failure: its label and message,
// neutralised.
func errorLine(c chat.Classification) *string {
	msg := sanitize.String(c.Label)
	if c.Message != "" {
		msg += " — " + sanitize.String(c.Message)
	}
	return &msg
}
