package tui

import (
	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/toolloop"
)

// Store is what the screen asks of the history database (*history.DB is one): the screen
// reads and writes the conversation through it alone.
type Store interface {
	// Sessions: opening, listing, searching, naming, forking and deleting them.
	CreateSession() (stored.Session, error)
	Session(id string) (stored.Session, error)
	Sessions() ([]stored.Session, error)
	Search(words string, limit int) ([]stored.Hit, error)
	SetTitle(id, newTitle string) error
	SetSessionModel(id, profile, model string) error
	Fork(sessionID string, through int64) (stored.Session, error)
	ForkOf(id string) (f stored.Fork, ok bool, err error)
	DeleteSession(id string) error

	// The transcript as it is shown, and its versions.
	Message(id int64) (stored.Message, error)
	TranscriptBefore(sessionID string, before int64, limit int) ([]stored.Message, error)
	CountBefore(sessionID string, before int64) (int, error)
	Versions(anchorID int64) ([]stored.Message, error)
	VersionMarks(sessionID string) (map[int64]stored.Mark, error)
	Carried(replyID int64) ([]stored.Message, error)
	Restore(replyID int64) error

	// What is sent: posts, the system prompt, new versions of a reply, pins and /compact.
	Post(sessionID, content, model string, queued bool, images ...chat.Image) (stored.Receipt, error)
	PostSeen(sessionID string, seen int64, content, model string, queued bool, images ...chat.Image) (stored.Receipt, error)
	Edit(operatorID int64, content, model string, queued bool, more ...chat.Image) (stored.Receipt, error)
	SystemPrompt(sessionID string) (stored.SystemPrompt, error)
	PostSystem(sessionID string, p stored.SystemPrompt) (stored.Message, error)
	RemoveSystem(sessionID string) (stored.Message, error)
	Regenerate(anchorID int64, model string, queued bool) (stored.Receipt, error)
	RetryRun(runID int64, model string, queued bool) (stored.Receipt, error)
	Continue(replyID int64, model string, queued bool) (stored.Receipt, error)
	SetPinned(id int64, pin bool) error
	CompactBefore(id string, before int64) error
	CompactedBefore(sessionID string) (int64, error)
	NextContext(sessionID string) ([]chat.Message, []int64, error)

	// Runs: what one sends, its events stored as they pass, its end, its tool calls.
	Run(id int64) (stored.Run, error)
	RunContext(runID int64) ([]chat.Message, stored.Progress, error)
	Record(runID int64, events <-chan chat.Event, clock chat.Clock) <-chan chat.Event
	FinishRun(id int64, f stored.Finish) error
	toolloop.Store

	// Drafts, and what was typed before (the input's history).
	Draft(sessionID string) (string, error)
	SetDraft(sessionID, text string) error
	DraftFiles(sessionID string) ([]stored.DraftFile, error)
	SetDraftFiles(sessionID string, files []stored.DraftFile) error
	Typed(except string, limit int) ([]string, error)
}
