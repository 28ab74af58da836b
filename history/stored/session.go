package stored

import (
	"time"

	"parley/internal/chat"
)

// Session is one conversation.
type Session struct {
	// ID is 8 lowercase hex characters, chosen at random.
	ID string
	// Title is the first line of the session's first operator message, at most 60 runes;
	// empty until the operator posts.
	Title     string
	CreatedAt time.Time
	// UpdatedAt is when a message was last posted or a run last ended.
	UpdatedAt time.Time
	// Messages counts the live (not superseded) messages.
	Messages int
	// Profile and Model are what the session last ran on (history's SetSessionModel), empty when
	// nothing was stored.
	Profile, Model string
	// ForkedFrom is the session this one was forked from (history's Fork; its ForkOf has more); empty for
	// one that is no fork.
	ForkedFrom string
}

// SystemPrompt is a session's instructions to the model, sent before the conversation.
type SystemPrompt struct {
	// Role names the parley role the prompt came from; empty for a prompt given as text.
	Role string
	Text string
}

// Hit is one message that matches a search.
type Hit struct {
	SessionID, Title string
	MessageID        int64
	Role             chat.Role
	CreatedAt        time.Time
	// Excerpt is the text around the matches, each match between HitStart and HitEnd.
	Excerpt string
}

// The marks around each match in a Hit's Excerpt: control characters, which no stored text
// shown on a screen keeps, so a caller can tell them from the text.
const (
	HitStart = "\x02"
	HitEnd   = "\x03"
)

// DraftFile is a file attached to a draft: its path as the operator gave it, and its text.
type DraftFile struct {
	Path string `json:"path"`
	Text string `json:"text"`
	// Image is set for an image, with its bytes in Data (chat.Image leaves them out of JSON).
	Image *chat.Image `json:"image,omitempty"`
	Data  []byte      `json:"data,omitempty"`
}
