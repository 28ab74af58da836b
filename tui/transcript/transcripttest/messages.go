// Package transcripttest holds the messages that tests of the transcript and of the chat screen
// both show: stored exchanges as the database returns them, and the session their layout
// goldens are drawn from.
package transcripttest

import (
	"fmt"

	"parley/history/stored"
	"parley/internal/chat"
)

// GoldenReply is a reply with the markdown a model typically sends.
const GoldenReply = "Here is a **list** and some `code`:\n\n- first item\n- second item\n\n```go\nfmt.Println(\"hi\")\n```\n\nThat is all."

// GoldenSession is a finished exchange followed by a question whose reply is in state st,
// with content and, when failed, the classification fail.
func GoldenSession(st chat.Status, content string, fail *chat.Classification) []stored.Message {
	return []stored.Message{
		{ID: 1, Role: chat.RoleUser, Content: "How do I print in Go?"},
		{ID: 2, Role: chat.RoleAssistant, AnchorID: 1, RunID: 1, Status: chat.StatusSucceeded, Model: "test-model", Content: GoldenReply},
		{ID: 3, Role: chat.RoleUser, Content: "And in Rust?"},
		{ID: 4, Role: chat.RoleAssistant, AnchorID: 3, RunID: 2, Status: st, Model: "test-model", Content: content, Retry: fail},
	}
}

// Overloaded is the failure the goldens show: a provider overloaded, retryable, with the
// provider's own message.
func Overloaded() *chat.Classification {
	return &chat.Classification{Retryable: true, Class: chat.Overloaded, Label: "Provider overloaded",
		Message: "The service may be temporarily overloaded, please try again later."}
}

// StoredExchanges returns n finished question/answer pairs as the database would return them.
func StoredExchanges(n int) []stored.Message {
	var msgs []stored.Message
	for i := range n {
		id := int64(2*i + 1)
		msgs = append(msgs,
			stored.Message{ID: id, Role: chat.RoleUser, Content: fmt.Sprintf("question %d", i+1)},
			stored.Message{ID: id + 1, Role: chat.RoleAssistant, AnchorID: id, RunID: int64(i + 1),
				Status: chat.StatusSucceeded, Model: "test-model",
				Content: fmt.Sprintf("Answer **%d**, in a paragraph.", i+1)})
	}
	return msgs
}
