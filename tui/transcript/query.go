package transcript

import (
	"parley/history/stored"
	"parley/internal/chat"
	"parley/internal/sanitize"
)

// This file answers what the screen asks about the transcript's messages: their text and
// status, the turns they belong to, and which come before or after which.

// Message returns message id as shown, and whether it is: its run's status, failure and
// finish reason as they are now, its content as it was stored (Text has what streamed since).
func (t *List) Message(id int64) (stored.Message, bool) {
	if e := t.byID[id]; e != nil {
		return e.message, true
	}
	return stored.Message{}, false
}

// Text returns the sanitized text of message id.
func (t *List) Text(id int64) string {
	if e := t.byID[id]; e != nil {
		return e.text.String()
	}
	return ""
}

// Status returns the run status shown for message id.
func (t *List) Status(id int64) chat.Status {
	if e := t.byID[id]; e != nil {
		return e.message.Status
	}
	return ""
}

// Anchor returns the operator message that reply id answers, id itself when it is an
// operator message, or 0.
func (t *List) Anchor(id int64) int64 {
	switch e := t.byID[id]; {
	case e == nil:
		return 0
	case e.message.Role == chat.RoleUser:
		return id
	default:
		return e.message.AnchorID
	}
}

// ReplyTo returns the id of the reply shown for the operator message anchor, or 0.
func (t *List) ReplyTo(anchor int64) int64 {
	for i := len(t.entries) - 1; i >= 0; i-- {
		if m := t.entries[i].message; m.AnchorID == anchor {
			return m.ID
		}
	}
	return 0
}

// Reply returns id when it is a reply, and the live reply answering it when it is an
// operator message; 0 when there is none.
func (t *List) Reply(id int64) int64 {
	if !t.IsOperator(id) {
		return id
	}
	return t.ReplyTo(id)
}

// IsOperator reports whether message id is one of the operator's.
func (t *List) IsOperator(id int64) bool {
	e := t.byID[id]
	return e != nil && e.message.Role == chat.RoleUser
}

// selectable reports whether the transcript selects msg: a reply, or an operator message.
func selectable(msg stored.Message) bool {
	return msg.Role == chat.RoleAssistant || msg.Role == chat.RoleUser
}

// Later counts the messages after message id; 0 when id is not shown.
func (t *List) Later(id int64) int {
	for i, e := range t.entries {
		if e.message.ID == id {
			return len(t.entries) - 1 - i
		}
	}
	return 0
}

// Between returns the ids of the messages after message after and before message before.
func (t *List) Between(after, before int64) []int64 {
	var ids []int64
	for _, e := range t.entries {
		if id := e.message.ID; id > after && id < before {
			ids = append(ids, id)
		}
	}
	return ids
}

// OperatorTexts returns what the operator's messages say, the newest first.
func (t *List) OperatorTexts() []string {
	var out []string
	for i := len(t.entries) - 1; i >= 0; i-- {
		if e := t.entries[i]; e.message.Role == chat.RoleUser {
			out = append(out, e.text.String())
		}
	}
	return out
}

// Last returns the id of the newest message, or 0.
func (t *List) Last() int64 {
	if len(t.entries) == 0 {
		return 0
	}
	return t.entries[len(t.entries)-1].message.ID
}

// LastReply returns the id of the newest reply, or 0.
func (t *List) LastReply() int64 {
	for i := len(t.entries) - 1; i >= 0; i-- {
		if t.entries[i].message.Role == chat.RoleAssistant {
			return t.entries[i].message.ID
		}
	}
	return 0
}

// Oldest returns the lowest message id shown, or 0.
func (t *List) Oldest() int64 {
	var id int64
	for _, e := range t.entries {
		if id == 0 || e.message.ID < id {
			id = e.message.ID
		}
	}
	return id
}

// Newest returns the highest message id shown, or 0: the newest stored message the screen has
// read or stored (a retry's reply is shown in the place of the one it retries, not at the end).
func (t *List) Newest() int64 {
	var id int64
	for _, e := range t.entries {
		id = max(id, e.message.ID)
	}
	return id
}

// Spoken is a message as a screen reader is told it: its text so far and how its run went, in
// the words the transcript shows under it.
type Spoken struct {
	Message   stored.Message
	Text      string
	Streaming bool
	// Outcome is what is said under a reply of how its run went ("" for nothing); Note is
	// the line about a retry of it that left it in place.
	Outcome, Note string
	// Tools are the reply's tool calls that have ended, each its line as the transcript
	// shows it collapsed: "echo {"message":"one"} · ran, 9 B".
	Tools []string
}

// Spoken returns the messages shown, oldest first, as a screen reader is told them. It costs
// no rendering.
func (t *List) Spoken() []Spoken {
	out := make([]Spoken, 0, len(t.entries))
	for _, e := range t.entries {
		words, _ := t.outcomeWords(e)
		var calls []string
		for _, l := range e.tools.lines {
			if l.res.Status != "" {
				calls = append(calls, sanitize.String(chat.ToolSummary(l.call))+" · "+chat.ToolOutcome(l.res))
			}
		}
		out = append(out, Spoken{Message: e.message, Text: e.text.String(), Streaming: e.streaming,
			Outcome: words, Note: e.note, Tools: calls})
	}
	return out
}
