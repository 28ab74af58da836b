package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"parley/history"
	"parley/history/stored"
	"parley/internal/attach"
	"parley/internal/chat"
)

// messageJSON is one message of `parley export --json`.
type messageJSON struct {
	ID         int64                `json:"id"`
	Role       chat.Role            `json:"role"`
	Content    string               `json:"content"`
	Status     chat.Status          `json:"status"`
	RunID      *int64               `json:"run_id"`
	AnchorID   *int64               `json:"anchor_id,omitempty"`
	Superseded bool                 `json:"superseded"`
	CreatedAt  time.Time            `json:"created_at"`
	Retry      *chat.Classification `json:"retry"`
	// Reasoning is a reply's thinking; FinishReason why it ended, when the endpoint said.
	Reasoning    string `json:"reasoning,omitempty"`
	FinishReason string `json:"finish_reason,omitempty"`
	// Model is the model that wrote a reply.
	Model string `json:"model,omitempty"`
	// SystemRole is the role a system prompt came from.
	SystemRole string `json:"system_role,omitempty"`
	// EditOf is, for an operator message sent as an edit, the operator message it replaced.
	EditOf *int64 `json:"edit_of,omitempty"`
	// Images are an operator message's images, each named by its SHA-256 (its bytes are in
	// the file of that name that --images writes).
	Images []imageJSON `json:"images,omitempty"`
	// Seam is, for a reply continued from a cut one (c, --continue), the byte of Content where
	// the continuation begins.
	Seam int `json:"seam,omitempty"`
	// ToolCalls are the tool calls a reply's run made, in order, with their results.
	ToolCalls []toolCallJSON `json:"tool_calls,omitempty"`
}

// toolCallJSON is one tool call of a reply in `parley export --json`.
type toolCallJSON struct {
	CallID    string          `json:"call_id"`
	Function  string          `json:"function"`
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Arguments string          `json:"arguments"`
	Step      int             `json:"step"`
	Status    chat.ToolStatus `json:"status"`
	Result    string          `json:"result"`
	IsError   bool            `json:"is_error"`
	Size      int             `json:"size"`
}

func toToolCallJSON(c stored.ToolCall) toolCallJSON {
	return toolCallJSON{CallID: c.Call.ID, Function: c.Call.Function, Server: c.Result.Server, Tool: c.Result.Tool,
		Arguments: c.Call.Arguments, Step: c.Step, Status: c.Result.Status, Result: c.Result.Text,
		IsError: c.Result.IsError, Size: c.Result.Size}
}

// imageJSON is one image of a message in `parley export --json`.
type imageJSON struct {
	chat.Image
	// File is where --images wrote it; empty without --images.
	File string `json:"file,omitempty"`
}

// exportSession is `parley export SESSION [--json|--markdown] [--images DIR]`: every message
// of a session, superseded ones too, with its run and classification, and with --images the
// images, written to DIR.
func exportSession(ctx context.Context, args []string, ios *IO) (int, error) {
	fs := quietFlags("export")
	jsonOut := fs.Bool("json", false, "")
	markdown := fs.Bool("markdown", false, "")
	imagesDir := fs.String("images", "", "")
	pos, err := parseInterspersed(fs, args)
	if err != nil || len(pos) != 1 || (*jsonOut && *markdown) {
		return chat.ExitUsage, usagef("usage: parley export SESSION [--json|--markdown] [--images DIR]")
	}
	db, sess, err := openSession(ios, pos[0])
	if err != nil {
		return chat.ExitUsage, err
	}
	defer db.Close()
	msgs, err := db.AllMessages(sess.ID)
	if err != nil {
		return chat.ExitFailed, err
	}
	files := map[string]string{} // an image's hash → the file --images wrote it to
	if *imagesDir != "" {
		if files, err = writeImages(db, msgs, *imagesDir); err != nil {
			return chat.ExitFailed, err
		}
	}
	if *markdown {
		writeMarkdown(ios.Out, sess, msgs, files)
		return chat.ExitOK, nil
	}
	out := struct {
		Session  sessionJSON   `json:"session"`
		Messages []messageJSON `json:"messages"`
	}{Session: toSessionJSON(sess), Messages: make([]messageJSON, 0, len(msgs))}
	for _, m := range msgs {
		mj := messageJSON{ID: m.ID, Role: m.Role, Content: m.Content, Status: m.Status, Superseded: m.Superseded,
			CreatedAt: m.CreatedAt, Retry: m.Retry, Reasoning: m.Reasoning, FinishReason: m.FinishReason, SystemRole: m.SystemRole,
			Seam: m.Seam}
		if m.Role == chat.RoleAssistant {
			mj.Model = m.Model
		}
		if m.Role != chat.RoleAssistant {
			mj.Status = "stored"
		}
		if m.EditOf != 0 {
			mj.EditOf = &m.EditOf
		}
		if m.RunID != 0 {
			mj.RunID, mj.AnchorID = &m.RunID, &m.AnchorID
		}
		for _, im := range m.Images {
			mj.Images = append(mj.Images, imageJSON{im, files[im.Hash]})
		}
		for _, c := range m.ToolCalls {
			mj.ToolCalls = append(mj.ToolCalls, toToolCallJSON(c))
		}
		out.Messages = append(out.Messages, mj)
	}
	return chat.ExitOK, chat.WriteJSON(ios.Out, out)
}

// writeImages writes every image of msgs to dir, once each, as <hash>.<type> (the same bytes
// as sent), and returns the file of each image by hash. dir is made when missing; a file that
// is there already is left as it is, since its name is its content.
func writeImages(db *history.DB, msgs []stored.Message, dir string) (map[string]string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot write the images to %s: %v", dir, err)
	}
	files := map[string]string{}
	for _, m := range msgs {
		for _, im := range m.Images {
			if files[im.Hash] != "" {
				continue
			}
			path := filepath.Join(dir, im.Hash[:16]+"."+strings.TrimPrefix(im.MIME, "image/"))
			if _, err := os.Stat(path); err != nil {
				data, err := db.ImageData(im.Hash)
				if err != nil {
					return nil, err
				}
				if err := os.WriteFile(path, data, 0o600); err != nil {
					return nil, fmt.Errorf("cannot write the images to %s: %v", dir, err)
				}
			}
			files[im.Hash] = path
		}
	}
	return files, nil
}

// writeMarkdown prints a session for reading: live messages, with superseded ones marked, and
// a line per image (linked to its file when --images wrote one).
func writeMarkdown(w io.Writer, sess stored.Session, msgs []stored.Message, files map[string]string) {
	title := sess.Title
	if title == "" {
		title = "Session " + sess.ID
	}
	fmt.Fprintf(w, "# %s\n\n_Session %s, started %s_\n", title, sess.ID, chat.FormatDate(sess.CreatedAt))
	if sess.ForkedFrom != "" {
		fmt.Fprintf(w, "\n_Forked from session %s_\n", sess.ForkedFrom)
	}
	for _, m := range msgs {
		who := "You"
		switch {
		case m.Role == chat.RoleAssistant:
			who = fmt.Sprintf("Reply (run %d, %s)", m.RunID, m.Status)
		case m.Role == chat.RoleSystem && m.Content == "":
			who = "System prompt removed" // the messages after it went without one
		case m.Role == chat.RoleSystem && m.SystemRole != "":
			who = "System prompt (role " + m.SystemRole + ")"
		case m.Role == chat.RoleSystem:
			who = "System prompt"
		case m.EditOf != 0:
			who = fmt.Sprintf("You (edited message %d)", m.EditOf)
		}
		if m.Superseded {
			who += " — superseded"
		}
		fmt.Fprintf(w, "\n## %s\n\n", who)
		if m.Reasoning != "" {
			// Collapsed where markdown is rendered as HTML, as a chat screen shows it.
			fmt.Fprintf(w, "<details>\n<summary>Thinking</summary>\n\n%s\n\n</details>\n\n", strings.TrimSpace(m.Reasoning))
		}
		fmt.Fprintf(w, "%s\n", strings.TrimRight(m.Content, "\n"))
		if len(m.ToolCalls) > 0 {
			fmt.Fprintln(w)
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(w, "- tool `%s` — %s\n", chat.ToolSummary(c.Call), chat.ToolOutcome(c.Result))
		}
		for _, im := range m.Images {
			if f := files[im.Hash]; f != "" {
				fmt.Fprintf(w, "\n![%s](%s)\n", attach.Chip(im), f)
			} else {
				fmt.Fprintf(w, "\n_%s (sha256 %s; export --images DIR writes it)_\n", attach.Chip(im), im.Hash[:16])
			}
		}
		if note := chat.FinishNote(m.FinishReason, m.Content); note != "" && m.Status == chat.StatusSucceeded {
			fmt.Fprintf(w, "\n_%s_\n", note)
		}
		if m.Retry != nil {
			fmt.Fprintf(w, "\n> %s — %s (%s", m.Retry.Label, m.Retry.Message, chat.FormatRetry(*m.Retry, time.Now()))
			if m.Retry.Rule != "" {
				fmt.Fprintf(w, "; rule %s", m.Retry.Rule)
			}
			fmt.Fprintln(w, ")")
		}
	}
}
