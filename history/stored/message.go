// Package stored holds what the database stores, as the rest of parley reads it: messages,
// sessions, runs, tool calls, receipts. It links no SQLite, so the screen's components can
// show stored rows without the database; package history reads and writes them.
package stored

import (
	"time"

	"parley/internal/chat"
)

// Message is one stored message, with the run that produced it when it is a reply.
type Message struct {
	ID        int64
	SessionID string
	Role      chat.Role
	Content   string
	// AnchorID is, for a reply, the operator message it answers; 0 otherwise.
	AnchorID int64
	// RunID is, for a reply, the run that produced it; 0 otherwise.
	RunID int64
	// Status is, for a reply, its run's status; empty otherwise.
	Status chat.Status
	// Superseded reports whether a regeneration replaced this message. Superseded messages
	// are kept but never sent to the model again.
	Superseded bool
	CreatedAt  time.Time
	// Retry is the classification of a failed or interrupted run; nil otherwise.
	Retry *chat.Classification
	// Attempts and Model are those of the reply's run.
	Attempts int
	Model    string
	// Reasoning is the thinking a reply's model streamed before its answer; never sent back
	// unless a profile asks (see history's Context).
	Reasoning string
	// FinishReason is the endpoint's finish_reason for a reply ("length": cut at the token
	// limit); empty until the run succeeds.
	FinishReason string
	// ReasoningTokens is what the endpoint said the reply's thinking took, 0 when it did not;
	// Thought is how long the model thought, 0 when it did not or it was not kept (both as its
	// run stored them at its end).
	ReasoningTokens int
	Thought         time.Duration
	// SystemRole is, for a system prompt, the name of the parley role it came from; empty for
	// a prompt given as text.
	SystemRole string
	// EditOf is, for an operator message sent as an edit (history's Edit), the one it replaced; 0
	// otherwise.
	EditOf int64
	// Images are an operator message's images: what they are, without their bytes
	// (history's ImageData reads those).
	Images []chat.Image
	// Pinned is set when the operator pinned the message: compaction never leaves it out.
	Pinned bool
	// Seam is, for a reply that continues a cut one (history's Continue), the byte of Content where the
	// continuation begins; 0 otherwise.
	Seam int
	// Usage is what a reply's run used, as it stored it at its end; FirstWord is how long its
	// first word took (0: none came, or not kept), and Took how long the run took in all, from
	// its start to its end (0 until it ends).
	Usage     chat.Usage
	FirstWord time.Duration
	Took      time.Duration
	// ToolCalls are, for a reply, the tool calls its run's model asked for, in order, with
	// what became of each.
	ToolCalls []ToolCall
}

// Receipt is what posting or regenerating returns.
type Receipt struct {
	// SessionID is the session of the run: for Post, the one it created, when it did.
	SessionID string
	// AnchorID is the operator message the new run answers.
	AnchorID int64
	// RunID is the new run, queued; below 0 for one the database could not store
	// (history's PostToRecovery), which only the recovery file has.
	RunID int64
	// ReplyID is the new run's reply, empty for now.
	ReplyID int64
	// Superseded lists, in ascending order, the messages a regeneration superseded.
	Superseded []int64
	// Queued echoes the caller: the run waits behind another that is active.
	Queued bool
	// Pending is set by history's Retry: the reply is hidden until its first text takes the place of
	// the live one.
	Pending bool
	// Prefix is set by history's Continue: the text the new reply begins with, which the request sends
	// as the assistant's turn for the model to go on from.
	Prefix string
}

// Continuable reports whether reply m can be gone on from (history's Continue): it has text or
// tool calls, and its run was cut (failed, cancelled, interrupted) or stopped at the token limit.
func (m Message) Continuable() bool {
	if m.Role != chat.RoleAssistant || m.Content == "" && len(m.ToolCalls) == 0 {
		return false
	}
	switch m.Status {
	case chat.StatusFailed, chat.StatusCancelled, chat.StatusInterrupted:
		return true
	case chat.StatusSucceeded:
		return m.FinishReason == "length"
	}
	return false
}

// Fork is where a forked session came from.
type Fork struct {
	// Origin is the session it was forked from, and AtMessage the origin's message it holds
	// the conversation up to; OriginTitle is empty when the origin has since been deleted.
	Origin      string
	AtMessage   int64
	OriginTitle string
	// At is when the message forked at was written.
	At time.Time
}

// Mark is a reply's place among the versions of its turn: it is version N of Of.
type Mark struct{ N, Of int }
