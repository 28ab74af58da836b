package demo

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"parley/internal/attach"
)

// Image is an image a request carried, as the demo read it from its data URI.
type Image struct {
	MIME          string `json:"mime"`
	Width, Height int
	Bytes         int `json:"bytes"`
	// Data is the image's bytes, for in-process tests; URL is an image_url that was no data
	// URI, which the demo does not fetch.
	Data []byte `json:"-"`
	URL  string `json:"url,omitempty"`
	// Err says why the image could not be read; empty when it was.
	Err string `json:"error,omitempty"`
}

// UnmarshalJSON reads a message's content in either of the forms OpenAI takes: a string, or
// content parts (text parts joined in order, image_url parts read as images).
func (m *Message) UnmarshalJSON(b []byte) error {
	var raw struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCalls  []ToolCall      `json:"tool_calls"`
		ToolCallID string          `json:"tool_call_id"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	m.Role, m.Content, m.Images, m.ToolCalls, m.ToolCallID = raw.Role, "", nil, raw.ToolCalls, raw.ToolCallID
	if len(raw.Content) == 0 || string(raw.Content) == "null" {
		return nil
	}
	if raw.Content[0] == '"' {
		return json.Unmarshal(raw.Content, &m.Content)
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL *struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(raw.Content, &parts); err != nil {
		return fmt.Errorf("content is neither a string nor content parts: %w", err)
	}
	var texts []string
	for _, p := range parts {
		switch {
		case p.Type == "text":
			texts = append(texts, p.Text)
		case p.Type == "image_url" && p.ImageURL != nil:
			m.Images = append(m.Images, readImage(p.ImageURL.URL))
		default:
			return fmt.Errorf("content part of type %q is not one the demo reads", p.Type)
		}
	}
	m.Content = strings.Join(texts, "\n")
	return nil
}

// readImage reads an image_url: a data URI's bytes, decoded and looked at.
func readImage(url string) Image {
	rest, ok := strings.CutPrefix(url, "data:")
	head, data, comma := strings.Cut(rest, ",")
	if !ok || !comma || !strings.HasSuffix(head, ";base64") {
		return Image{URL: url, Err: "not a base64 data URI"}
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return Image{Err: "the base64 does not decode: " + err.Error()}
	}
	im, err := attach.Inspect("image", b)
	if err != nil {
		return Image{MIME: strings.TrimSuffix(head, ";base64"), Bytes: len(b), Data: b, Err: err.Error()}
	}
	if declared := strings.TrimSuffix(head, ";base64"); declared != im.MIME {
		return Image{MIME: declared, Bytes: len(b), Data: b, Err: "declared " + declared + " but the bytes are " + im.MIME}
	}
	return Image{MIME: im.MIME, Width: im.Width, Height: im.Height, Bytes: len(b), Data: b}
}

// describeImages is what the demo says of the images a question came with: it cannot see them,
// but it can say what arrived.
func describeImages(images []Image) string {
	var lines []string
	for i, im := range images {
		what := fmt.Sprintf("%d. ", i+1)
		switch {
		case im.Err != "":
			what += "could not be read: " + im.Err
		default:
			what += fmt.Sprintf("%s, %d×%d pixels, %s", strings.ToUpper(strings.TrimPrefix(im.MIME, "image/")),
				im.Width, im.Height, attach.Size(int64(im.Bytes)))
		}
		lines = append(lines, what)
	}
	noun := "an image"
	if len(images) > 1 {
		noun = fmt.Sprintf("%d images", len(images))
	}
	return "I received " + noun + " with your message. As the offline demo I cannot see pictures, but this is what arrived:\n\n" +
		strings.Join(lines, "\n")
}

// noVisionBody is llama-server's answer to an image when it runs without a vision projector.
const noVisionBody = `{"error":{"code":500,"message":"image input is not supported - hint: if this is unexpected, you may need to provide the mmproj","type":"server_error"}}`

// refuseImages answers as llama-server without a vision projector does.
func refuseImages(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusInternalServerError)
	fmt.Fprint(w, noVisionBody)
}

// serveProps answers GET /props as llama-server does, with only what the demo is sure of: what
// the model takes, and its window when Options.Window gives one. (ContextTokens is left out:
// the demo's overflow is for clients that do not know the window.)
func (s *Server) serveProps(w http.ResponseWriter, r *http.Request) {
	props := map[string]any{
		"model_alias": s.opts.Model,
		"modalities":  map[string]bool{"vision": !s.opts.NoVision, "video": false, "audio": false},
		"build_info":  "parley demo",
	}
	if s.opts.Window > 0 {
		props["default_generation_settings"] = map[string]any{"n_ctx": s.opts.Window}
		props["total_slots"] = 1
	}
	writeJSON(w, http.StatusOK, props)
}

// hasImages reports whether any of msgs carries an image.
func hasImages(msgs []Message) bool {
	for _, m := range msgs {
		if len(m.Images) > 0 {
			return true
		}
	}
	return false
}
