package stored

import (
	"time"

	"parley/internal/chat"
)

// Run is one attempt to produce a reply to an anchor.
type Run struct {
	ID int64
	// AnchorID is the operator message answered; ReplyID the reply the run writes.
	AnchorID, ReplyID int64
	SessionID         string
	Status            chat.Status
	// Owner is the token of the database handle that started the run; empty while queued.
	Owner string
	Model string
	// Retry is the classification of a failed or interrupted run; nil otherwise.
	Retry *chat.Classification
	// Attempts counts the requests sent.
	Attempts int
	// Usage sums the token usage the endpoint reported.
	Usage chat.Usage
	// FinishReason is the endpoint's finish_reason for a succeeded run ("stop", "length", …).
	FinishReason string
	CreatedAt    time.Time
	// StartedAt and FinishedAt are zero until the run starts and ends.
	StartedAt, FinishedAt time.Time
}

// Result is how r ended, for Tier 2 to decide a retry from.
func (r Run) Result() chat.RunResult {
	return chat.RunResult{RunID: r.ID, AnchorID: r.AnchorID, Status: r.Status, Retry: r.Retry, Attempts: r.Attempts}
}

// Finish is how a run ended.
type Finish struct {
	// Status is chat.StatusSucceeded, chat.StatusFailed or chat.StatusCancelled.
	Status chat.Status
	// Retry is required when Status is chat.StatusFailed, and refused otherwise.
	Retry    *chat.Classification
	Attempts int
	Usage    chat.Usage
	// FinishReason is the endpoint's finish_reason, when it gave one.
	FinishReason string
	// Model is the model that answered, when the endpoint named it: the reply is then
	// stored as its.
	Model string
	// Thought is how long the model thought, 0 when it did not.
	Thought time.Duration
	// FirstWord is how long after the request that answered was sent its first word (of
	// answer or thinking) came; 0 when none came.
	FirstWord time.Duration
}

// Progress is how far a run has come: the steps (model calls) that asked for tools, and the
// bytes of its reply's content so far. A run resumed from another begins where it stopped.
type Progress struct {
	Steps, Seam int
}

// ToolCall is a tool call stored with the run whose model asked for it.
type ToolCall struct {
	ID    int64
	RunID int64
	// Step is the model call of the run that asked for it, from 0; Seam is the byte of the
	// reply's content where that step's text ended.
	Step, Seam int
	Call       chat.ToolCall
	// Result is what became of it: Status is chat.ToolPending until it ends.
	Result                chat.ToolResult
	CreatedAt, FinishedAt time.Time
}

// PendingText is what goes back to the model for a call stored pending whose end was never
// stored: parley stopped while it ran, so it may have done its work.
const PendingText = chat.ToolMayHaveRun

// SentText is the text the call's result goes back to the model as.
func (c ToolCall) SentText() string {
	if c.Result.Status == chat.ToolPending {
		return PendingText
	}
	return c.Result.ResultText()
}
