package tui

import (
	"parley/history"
	"parley/internal/chat"
)

// This file answers what the model asks about the transcript's messages: their text and
// status, the turns they belong to, and which come before or after which.

// Message returns message id as shown, and whether it is: its run's status, failure and
// finish reason as they are now, its content as it was stored (Text has what streamed since).
func (t *transcriptView) Message(id int64) (history.Message, bool) {
	if e := t.byID[id]; e != nil {
		return e.message, true
	}
	return history.Message{}, false
}

// Text returns the sanitized text of message id.
func (t *transcriptView) Text(id int64) string {
	if e := t.byID[id]; e != nil {
		return e.text.String()
	}
	return ""
}

// Status returns the run status shown for message id.
func (t *transcriptView) Status(id int64) chat.Status {
	if e := t.byID[id]; e != nil {
		return e.message.Status
	}
	return ""
}

// Anchor returns the operator message that reply id answers, id itself when it is an
// operator message, or 0.
func (t *transcriptView) Anchor(id int64) int64 {
	switch e := t.byID[id]; {
	case e == nil:
		return 0
	case e.message.Role == history.RoleUser:
		return id
	default:
		return e.message.AnchorID
	}
}

// ReplyTo returns the id of the reply shown for the operator message anchor, or 0.
func (t *transcriptView) ReplyTo(anchor int64) int64 {
	for i := len(t.entries) - 1; i >= 0; i-- {
		if m := t.entries[i].message; m.AnchorID == anchor {
			return m.ID
		}
	}
	return 0
}

// Later counts the messages after message id; 0 when id is not shown.
func (t *transcriptView) Later(id int64) int {
	for i, e := range t.entries {
		if e.message.ID == id {
			return len(t.entries) - 1 - i
		}
	}
	return 0
}

// Between returns the ids of the messages after message after and before message before.
func (t *transcriptView) Between(after, before int64) []int64 {
	var ids []int64
	for _, e := range t.entries {
		if id := e.message.ID; id > after && id < before {
			ids = append(ids, id)
		}
	}
	return ids
}

// OperatorTexts returns what the operator's messages say, the newest first.
func (t *transcriptView) OperatorTexts() []string {
	var out []string
	for i := len(t.entries) - 1; i >= 0; i-- {
		if e := t.entries[i]; e.message.Role == history.RoleUser {
			out = append(out, e.text.String())
		}
	}
	return out
}

// Last returns the id of the newest message, or 0.
func (t *transcriptView) Last() int64 {
	if len(t.entries) == 0 {
		return 0
	}
	return t.entries[len(t.entries)-1].message.ID
}

// LastReply returns the id of the newest reply, or 0.
func (t *transcriptView) LastReply() int64 {
	for i := len(t.entries) - 1; i >= 0; i-- {
		if t.entries[i].message.Role == history.RoleAssistant {
			return t.entries[i].message.ID
		}
	}
	return 0
}
